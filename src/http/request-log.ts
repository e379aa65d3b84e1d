import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { rawPath } from './query.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** When the request came in (process.hrtime), set by the first hook. */
    startedAt: bigint;
  }
}

/** Paths are logged at most this long: a 16 KiB URL must not make every log line 16 KiB. */
const LOGGED_PATH_CHARS = 256;

/** The request's path (never its query) as logged: cut short, with a mark where it was cut. */
export function loggedPath(request: FastifyRequest): string {
  const path = rawPath(request);
  return path.length <= LOGGED_PATH_CHARS ? path : `${path.slice(0, LOGGED_PATH_CHARS)}…`;
}

/** One line per answer: what was asked, the answer, the account, and how long it took. */
export function logResponse(log: Logger, request: FastifyRequest, reply: FastifyReply): void {
  const micros = Number((process.hrtime.bigint() - request.startedAt) / 1000n);
  log.info(
    {
      method: request.method,
      path: loggedPath(request),
      status: reply.statusCode,
      retcode: request.retcode,
      account: request.grant?.account.id,
      us: micros,
    },
    'response',
  );
}
