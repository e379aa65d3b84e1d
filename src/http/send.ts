import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

import { JSON_CONTENT_TYPE } from './wire/content-type.js';

/**
 * Every answer, success or error, is JSON text already rendered by the wire layer. An async
 * handler must return the reply this gives back: fastify then waits for the onSend hooks (gzip
 * of a large body runs as a stream), where a handler resolving undefined sends an empty body.
 */
export function sendJson(reply: FastifyReply, body: string | Buffer | Readable, status = 200): FastifyReply {
  return reply.code(status).header('content-type', JSON_CONTENT_TYPE).send(body);
}
