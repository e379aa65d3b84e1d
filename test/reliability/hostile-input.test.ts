/**
 * Hostile input (issue #6, 3), property-based, in-process on both engines: broken and deeply
 * nested JSON, wrong types in every field, huge strings, invalid UTF-8, `__proto__` and
 * `constructor` keys, absurd dates, odd query strings, broken gzip and gzip bombs, other methods,
 * paths and content types. Every answer is a 4xx with the contract's error body (never a 500,
 * never a hang), and the victim account's stored data is the same afterwards, byte for byte.
 * The real-socket cases (slow loris, malformed HTTP) are in hostile-socket.test.ts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ENGINES, startHarness, type Answer, type Harness, type User } from '../support/harness.js';
import { reportFigures } from './support/figures.js';
import { checkErrorAnswer, mustFail, queries, type HostileRequest } from './support/hostile.js';
import { wireTask } from '../http/support/api.js';
import { z } from 'zod';

const RUNS: Readonly<Record<string, number>> = { deepJson: 25, hugeStrings: 40, gzipBomb: 8 };
const DEFAULT_RUNS = 100;
const SCALE = Number(process.env['RELIABILITY_FUZZ_SCALE'] ?? 1);

const listShape = z.strictObject({ entries: z.array(z.unknown()), cursor: z.string().min(1), has_more: z.boolean() });

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function describeRequest(request: HostileRequest): string {
  const body =
    request.body === undefined
      ? ''
      : ` body ${request.body.length} bytes: ${request.body.subarray(0, 120).toString('utf8')}`;
  return `${request.family}: ${request.method} ${request.url.slice(0, 200)} ${JSON.stringify(request.headers)}${body}`;
}

/** What is wrong with the answer to `request`, or undefined when it is what the contract says. */
function problemWith(request: HostileRequest, answer: Answer): string | undefined {
  if (answer.headers['x-content-type-options'] !== 'nosniff') return 'no X-Content-Type-Options: nosniff';
  if (answer.headers['x-powered-by'] !== undefined) return 'an X-Powered-By header';
  if (answer.status >= 500) return `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  // A HEAD answer has no body by HTTP's rules: its status is what there is to check.
  if (request.method === 'HEAD') return answer.status === 400 ? undefined : `HEAD answered ${answer.status}`;
  if (answer.headers['content-type'] !== 'application/json; charset=utf-8')
    return `content type ${String(answer.headers['content-type'])}`;
  if (!request.mustFail && answer.status === 200) {
    return listShape.safeParse(answer.json).success ? undefined : `a 200 that is no list: ${answer.text.slice(0, 300)}`;
  }
  const checked = checkErrorAnswer(answer.status, answer.text);
  return /^E\d{3}$/.test(checked) ? undefined : checked;
}

describe.each(ENGINES)('hostile input on %s, in-process', (engine) => {
  let harness: Harness | undefined;
  let victim: User | undefined;
  let victimIds: string[] = [];
  let stored = '';
  const counts: Record<string, number> = {};
  let anomalies = 0;
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

  const started = (): { harness: Harness; victim: User } => {
    if (harness === undefined || victim === undefined) throw new Error('the harness is not started');
    return { harness, victim };
  };

  /** Everything the victim account holds, deleted records included, as the service shows it. */
  const snapshot = async (): Promise<string> => {
    const { harness: h, victim: v } = started();
    const parts: string[] = [];
    for (const url of [
      '/v1/tasks?cursor=c1.0',
      '/v1/projects?cursor=c1.0',
      '/v1/contexts?cursor=c1.0',
      '/v1/settings',
    ]) {
      const answer = await call(h.app, { url, token: v.token });
      expect(answer.status, answer.text).toBe(200);
      parts.push(answer.text);
    }
    return parts.join('\n');
  };

  const send = async (request: HostileRequest, token: string): Promise<Answer> => {
    const { harness: h } = started();
    counts[request.family] = (counts[request.family] ?? 0) + 1;
    return withTimeout(
      call(h.app, {
        method: request.method,
        url: request.url,
        token,
        headers: { ...request.headers },
        ...(request.body === undefined ? {} : { body: request.body }),
      }),
      15_000,
      describeRequest(request),
    );
  };

  beforeAll(async () => {
    harness = await startHarness(engine);
    victim = await harness.newUser('Asia/Shanghai');
    const seed = Array.from({ length: 20 }, (_unused, index) => ({
      id: `victim-${index}`,
      title: `victim task ${index} <b>&'"`,
      notes: index % 2 === 0 ? 'ünïcødé 中文 😀' : '',
      tags: [`t${index % 3}`],
      priority: index % 4,
      ...(index % 5 === 0 ? { project: 'Home' } : {}),
      ...(index % 7 === 0 ? { context: '@phone' } : {}),
      ...(index % 3 === 0 ? { start_at: '2026-12-01 09:00:00 +0800' } : {}),
      ...(index === 4 ? { completed: '2026-11-01 10:00:00 +0800' } : {}),
    }));
    const created = await call(harness.app, { url: '/v1/tasks', token: victim.token, body: seed });
    expect(created.status, created.text).toBe(200);
    const gone = await call(harness.app, {
      url: '/v1/tasks',
      token: victim.token,
      body: { id: 'victim-gone', title: 'gone', deleted: new Date().toISOString() },
    });
    expect(gone.status, gone.text).toBe(200);
    victimIds = [...seed.map((task) => task.id), 'victim-gone'];
    stored = await snapshot();
  });

  afterAll(async () => {
    await harness?.close();
    const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
    reportFigures(`hostile input (${engine}, in-process)`, {
      cases: total,
      families: Object.keys(counts).length,
      anomalies,
    });
  });

  const families = (): Record<string, fc.Arbitrary<HostileRequest>> => mustFail(victimIds);
  const FAMILY_NAMES = [
    'brokenJson',
    'deepJson',
    'wrongTypes',
    'hugeStrings',
    'invalidUtf8',
    'protoKeys',
    'absurdDates',
    'brokenGzip',
    'gzipBomb',
    'addresses',
    'contentTypes',
  ];

  it.each(FAMILY_NAMES)('refuses %s with a 4xx error body and changes nothing', { timeout: 120_000 }, async (name) => {
    const arbitrary = families()[name];
    if (arbitrary === undefined) throw new Error(`no family ${name}`);
    const { victim: v } = started();
    await fc.assert(
      fc.asyncProperty(arbitrary, async (request) => {
        const answer = await send(request, v.token);
        const problem = problemWith(request, answer);
        if (problem !== undefined) {
          anomalies += 1;
          throw new Error(`${problem}\n  for ${describeRequest(request)}`);
        }
      }),
      { numRuns: Math.round((RUNS[name] ?? DEFAULT_RUNS) * SCALE) },
    );
    expect(await snapshot()).toBe(stored);
  });

  it(
    'answers odd query strings with a list or a 4xx error body; unknown, repeated or clashing names always fail',
    { timeout: 120_000 },
    async () => {
      const { victim: v } = started();
      await fc.assert(
        fc.asyncProperty(queries(v.token), async (request) => {
          const answer = await send(request, v.token);
          const problem = problemWith(request, answer);
          if (problem !== undefined) {
            anomalies += 1;
            throw new Error(`${problem}\n  for ${describeRequest(request)}`);
          }
        }),
        { numRuns: Math.round(200 * SCALE) },
      );
      expect(await snapshot()).toBe(stored);
    },
  );

  it(
    'takes `__proto__` and `constructor` keys in valid bodies as plain unknown fields: no pollution, no extra fields',
    { timeout: 120_000 },
    async () => {
      const { harness: h } = started();
      const other = await h.newUser();
      const keyed = fc
        .tuple(
          fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'),
          fc.integer({ min: 0, max: 2 }),
        )
        .map(([key, shape]): HostileRequest => {
          const polluting = `{"polluted":"yes","title":"from ${key}","isAdmin":true}`;
          const texts = [
            `{"title":"ok","${key}":${polluting}}`,
            `[{"${key}":${polluting},"title":"ok"}]`,
            `{"title":"ok","tags":["${key}"],"project":"${key}","context":"${key}"}`,
          ];
          return {
            family: `${key} keys, valid`,
            method: 'POST',
            url: '/v1/tasks',
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(texts[shape] ?? ''),
            mustFail: false,
          };
        });
      await fc.assert(
        fc.asyncProperty(keyed, async (request) => {
          const answer = await send(request, other.token);
          expect(answer.status, answer.text).toBe(200);
          const json: unknown = answer.json;
          const tasks = Array.isArray(json)
            ? json
            : typeof json === 'object' && json !== null && 'entries' in json
              ? json.entries
              : [json];
          for (const task of z.array(z.unknown()).parse(tasks)) {
            // Exactly the contract's fields: nothing taken over from the hostile keys.
            wireTask.parse(task);
            expect(task).toMatchObject({ title: 'ok' });
          }
        }),
        { numRuns: Math.round(60 * SCALE) },
      );
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
      expect(Reflect.get({}, 'polluted')).toBeUndefined();
      expect(Reflect.get({}, 'isAdmin')).toBeUndefined();
      expect(await snapshot()).toBe(stored);
    },
  );
});
