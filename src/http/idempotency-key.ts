import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Idempotency } from '../service/idempotency.js';
import { rawPath } from './query.js';
import { bodyTextOf } from './request-body.js';
import { WireError } from './wire/errors.js';

export const KEY_MAX = 200;

/**
 * The `Idempotency-Key` of a POST, with a digest of the request it came with (path and body text),
 * so a retry is told apart from a different request under the same key.
 */
export function idempotencyOf(request: FastifyRequest): Idempotency | undefined {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length < 1 || key.length > KEY_MAX) {
    throw WireError.invalidParameter('Idempotency-Key', `1-${KEY_MAX} characters`);
  }
  const requestHash = createHash('sha256')
    .update(`${rawPath(request)}\n`)
    .update(bodyTextOf(request))
    .digest('hex');
  return { key, requestHash };
}
