import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceMetrics } from './metrics.js';

/** The route pattern that answered (`/v1/tasks/:id`); requests that matched none share one label. */
function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

/**
 * Counts every request: in flight from its arrival until its connection is done with it, then its
 * duration by route pattern and its answer by retcode. Registered before every other hook, so a
 * request refused by one (shed, rate-limited) is counted too.
 */
export function registerMetricsHooks(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onRequest', async (_request, reply) => {
    metrics.inFlight.inc();
    reply.raw.once('close', () => metrics.inFlight.dec());
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = routeOf(request);
    metrics.requestDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    metrics.answers.inc({ route, retcode: request.retcode ?? 'ok' });
  });
}
