import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Every answer, success or error, is JSON text already rendered by the wire layer. */
export function sendJson(reply: FastifyReply, body: string | Readable, status = 200): void {
  void reply.code(status).header('content-type', JSON_CONTENT_TYPE).send(body);
}
