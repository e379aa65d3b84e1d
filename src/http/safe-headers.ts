import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawPath } from './query.js';

/**
 * Headers every answer carries: no browser guesses a type other than the one sent, and no cache
 * on the way keeps an answer of the API or of CalDAV, which hold an account's data.
 */
export function setSafeHeaders(request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('x-content-type-options', 'nosniff');
  const path = rawPath(request);
  if (path.startsWith('/v1') || path.startsWith('/dav')) void reply.header('cache-control', 'no-store');
}
