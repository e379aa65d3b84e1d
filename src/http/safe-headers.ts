import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawPath } from './query.js';

/** A year: a browser that met the service over HTTPS keeps to HTTPS for it that long. */
const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/**
 * Headers every answer carries: no browser guesses a type other than the one sent, and no cache
 * on the way keeps an answer of the API or of CalDAV, which hold an account's data. Over HTTPS
 * (directly, or as a proxy named by --trust-proxy says), `Strict-Transport-Security` too.
 */
export function setSafeHeaders(request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('x-content-type-options', 'nosniff');
  if (request.protocol === 'https') void reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  const path = rawPath(request);
  if (path.startsWith('/v1') || path.startsWith('/dav')) void reply.header('cache-control', 'no-store');
}
