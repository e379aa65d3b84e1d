import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Readiness } from '../readiness.js';
import { sendJson } from '../send.js';
import { HEALTH_OK } from '../wire/envelopes.js';
import { WireError } from '../wire/errors.js';

export interface HealthDeps {
  /** Resolves when the store answers; throws StoreUnavailableError when it does not. */
  readonly storeAnswers: () => Promise<void>;
  /** Draining turns `GET /readyz` to 503; absent: ready while the store answers. */
  readonly readiness?: Readiness | undefined;
}

/**
 * `/healthz`: the store answers. Liveness (`/livez`): the process answers. Readiness (`/readyz`):
 * it is not draining and its store answers.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  async function health(_request: unknown, reply: FastifyReply): Promise<FastifyReply> {
    await deps.storeAnswers();
    return sendJson(reply, HEALTH_OK);
  }

  async function live(_request: unknown, reply: FastifyReply): Promise<FastifyReply> {
    return sendJson(reply, HEALTH_OK);
  }

  async function ready(_request: unknown, reply: FastifyReply): Promise<FastifyReply> {
    if (deps.readiness?.draining === true) throw WireError.unavailable();
    await deps.storeAnswers();
    return sendJson(reply, HEALTH_OK);
  }

  app.get('/healthz', health);
  app.get('/livez', live);
  app.get('/readyz', ready);
}
