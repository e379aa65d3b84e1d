/**
 * E503 (API.md sections 6 and 7) from the configurable per-token rate limit and from overload
 * shedding, each on a real app over the harness's real store. (Idempotency-Key retries are
 * covered by idempotency.test.ts.)
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServices } from '../../src/service/services.js';
import { buildApp, type AppDeps } from '../../src/http/app.js';
import { loadWebApp } from '../../src/http/web-app.js';
import { call, ENGINES, type Harness } from '../support/harness.js';
import { expectError, ok, taskList } from './support/api.js';
import { useHarness } from './support/setup.js';

const E503 = { status: 503, retcode: 'E503', retmsg: 'server resources are unavailable' } as const;

/** Another app on the same store, with options the harness does not set. */
async function appOn(
  harness: Harness,
  options: Pick<AppDeps, 'rateLimitPerSecond' | 'loadLimits' | 'webApp'>,
): Promise<FastifyInstance> {
  const app = await buildApp({
    services: buildServices(harness.store),
    log: pino({ level: 'silent' }),
    maintenance: false,
    ...options,
  });
  await app.ready();
  return app;
}

describe.each(ENGINES)('limits and retries on %s', (engine) => {
  const suite = useHarness(engine);

  describe('E503', () => {
    let limited: FastifyInstance | undefined;
    let shedding: FastifyInstance | undefined;
    beforeAll(async () => {
      limited = await appOn(suite().harness, { rateLimitPerSecond: 2 });
      shedding = await appOn(suite().harness, { loadLimits: { maxInFlight: 1, maxEventLoopDelayMs: 10_000 } });
    });
    afterAll(async () => {
      await limited?.close();
      await shedding?.close();
    });

    it('answers past the per-token rate limit with Retry-After; other tokens are not held back', async () => {
      const app = limited;
      if (app === undefined) throw new Error('app not started');
      const { user } = await suite().newClient();
      const { user: other } = await suite().newClient();
      const answers = [];
      for (let index = 0; index < 4; index++)
        answers.push(await call(app, { url: '/v1/tasks?limit=1', token: user.token }));
      const refused = answers.filter((answer) => answer.status === 503);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(answers[0]?.status).toBe(200);
      for (const answer of refused) {
        expectError(answer, { ...E503, reqdata: 'limit=1' });
        expect(answer.headers['retry-after']).toBe('1');
      }
      ok(await call(app, { url: '/v1/tasks', token: other.token }), taskList);
    });

    // Issue 21 item 7: two tabs opened at once got E503 on the app's own script.
    it("never sheds the web app's own files, which are a lookup in memory", async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'task-service-web-'));
      await mkdir(path.join(dir, 'assets'));
      const files: ReadonlyArray<readonly [string, string]> = [
        ['index.html', '<!doctype html>'],
        ['sw.js', '//'],
        ['favicon.ico', 'icon'],
        ['assets/app-1a2b.js', '//'],
        ['assets/manifest-3c4d.webmanifest', '{}'],
      ];
      for (const [name, text] of files) await writeFile(path.join(dir, name), text);
      const app = await appOn(suite().harness, {
        loadLimits: { maxInFlight: 0, maxEventLoopDelayMs: 10_000 },
        webApp: await loadWebApp(dir),
      });
      try {
        const { user } = await suite().newClient();
        for (const url of ['/', '/sw.js', '/favicon.ico', '/assets/app-1a2b.js', '/assets/manifest-3c4d.webmanifest'])
          expect((await app.inject({ url })).statusCode, url).toBe(200);
        // Everything else is shed as before: the API, and a path that only looks like an asset.
        expectError(await call(app, { url: '/v1/tasks', token: user.token }), { ...E503, reqdata: '' });
        expect((await app.inject({ url: '/assets/nothing.js' })).statusCode).toBe(503);
        expect((await app.inject({ method: 'POST', url: '/', payload: 'x' })).statusCode).toBe(503);
      } finally {
        await app.close();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('sheds requests past the in-flight bound with E503 instead of queueing them', async () => {
      const app = shedding;
      if (app === undefined) throw new Error('app not started');
      const { user } = await suite().newClient();
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => call(app, { url: '/v1/tasks', token: user.token })),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses).toContain(200);
      expect(statuses).toContain(503);
      for (const answer of answers.filter((each) => each.status === 503)) {
        expectError(answer, { ...E503, reqdata: '' });
        expect(answer.headers['retry-after']).toBe('1');
      }
    });
  });
});
