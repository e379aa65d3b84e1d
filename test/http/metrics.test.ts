/**
 * The figures of GET /metrics, counted by the app's hooks: shed requests by reason, answers by
 * route pattern, in-flight back to zero; and /readyz turning 503 once the process drains.
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { ServiceMetrics } from '../../src/http/metrics/metrics.js';
import { Readiness } from '../../src/http/readiness.js';
import { buildServices } from '../../src/service/services.js';
import { call } from '../support/harness.js';
import { useHarness } from './support/setup.js';

async function value(metrics: ServiceMetrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const found = values.find((sample) =>
    Object.entries(labels).every(([key, wanted]) => String(sample.labels[key]) === wanted),
  );
  return found?.value ?? 0;
}

describe('metrics and readiness of the HTTP app', () => {
  const suite = useHarness('sqlite');
  const metrics = new ServiceMetrics();
  const readiness = new Readiness();
  let app: FastifyInstance | undefined;

  beforeAll(async () => {
    app = await buildApp({
      services: buildServices(suite().harness.store),
      log: pino({ level: 'silent' }),
      maintenance: false,
      loadLimits: { maxInFlight: 1, maxEventLoopDelayMs: 10_000 },
      metrics,
      readiness,
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('counts requests shed under load by reason, and answers by route pattern and retcode', async () => {
    if (app === undefined) throw new Error('app not started');
    const shedding = app;
    const { user } = await suite().newClient();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => call(shedding, { url: '/v1/tasks', token: user.token })),
    );
    const shed = answers.filter((answer) => answer.status === 503).length;
    expect(shed).toBeGreaterThan(0);
    expect(await value(metrics, 'task_service_http_refused_total', { reason: 'load' })).toBe(shed);
    expect(await value(metrics, 'task_service_http_answers_total', { route: '/v1/tasks', retcode: 'E503' })).toBe(shed);
    expect(await value(metrics, 'task_service_http_answers_total', { route: '/v1/tasks', retcode: 'ok' })).toBe(
      8 - shed,
    );
    expect(await value(metrics, 'task_service_http_requests_in_flight')).toBe(0);
  });

  it('answers /readyz with 503 once draining, while /livez still answers', async () => {
    if (app === undefined) throw new Error('app not started');
    expect((await call(app, { url: '/readyz' })).status).toBe(200);
    readiness.drain();
    const draining = await call(app, { url: '/readyz' });
    expect(draining.status).toBe(503);
    expect(draining.json).toMatchObject({ retcode: 'E503' });
    expect((await call(app, { url: '/livez' })).status).toBe(200);
  });
});
