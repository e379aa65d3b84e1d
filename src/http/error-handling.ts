import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { DomainError, StoreUnavailableError } from '../domain/errors.js';
import { rawQuery } from './query.js';
import { bodyEchoOf } from './request-body.js';
import { loggedPath } from './request-log.js';
import { setSafeHeaders } from './safe-headers.js';
import { sendJson } from './send.js';
import { fromProblem, renderErrorBody, statusOf, WireError } from './wire/errors.js';
import { rawErrorResponse } from './wire/raw-answer.js';
import { bodyWithoutSecrets, queryWithoutSecrets } from './wire/reqdata.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The retcode of an error answer, for the log line and the metrics; undefined on success. */
    retcode: string | undefined;
  }
}

/** Seconds a client should wait before retrying an E503. */
export const RETRY_AFTER_SECONDS = '1';

/** The `code` fastify puts on its own errors (`FST_ERR_…`), if the error has one. */
function frameworkCodeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** Maps anything thrown while serving to the contract's error; unknown failures stay unknown. */
function wireErrorOf(error: unknown): WireError | undefined {
  if (error instanceof WireError) return error;
  if (error instanceof DomainError) return fromProblem(error.problem);
  if (error instanceof StoreUnavailableError) return WireError.unavailable();
  switch (frameworkCodeOf(error)) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return WireError.bodyTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return WireError.contentType();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return WireError.unparsableJson();
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return WireError.noSuchAddress();
    default:
      return undefined;
  }
}

/**
 * The answer to HTTP that could not be read as a request (node's parser refused it): a broken
 * body framing is E001, anything else names no address of the API, E002. A client too slow to
 * send a request gets no answer: the connection is closed.
 */
function clientErrorOf(error: Error): WireError | undefined {
  const code = frameworkCodeOf(error) ?? '';
  if (!code.startsWith('HPE_')) return undefined;
  return /CONTENT_LENGTH|CHUNK|TRANSFER_ENCODING/.test(code) ? WireError.unparsableJson() : WireError.noSuchAddress();
}

/** Replaces fastify's own answer to malformed HTTP, whose body is not the contract's. */
export function answerClientError(error: Error, socket: Duplex): void {
  const known = clientErrorOf(error);
  if (known !== undefined && socket.writable) socket.write(rawErrorResponse(known));
  socket.destroy();
}

function reqdataOf(request: FastifyRequest): string {
  return request.method === 'POST' ? bodyWithoutSecrets(bodyEchoOf(request)) : queryWithoutSecrets(rawQuery(request));
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: WireError): void {
  request.retcode = error.retcode;
  // Also set by the first hook; repeated here for the errors fastify raises before any hook.
  setSafeHeaders(request, reply);
  if (error.retcode === 'E401') void reply.header('www-authenticate', 'Bearer realm="task-service"');
  if (error.retcode === 'E503') void reply.header('retry-after', RETRY_AFTER_SECONDS);
  sendJson(reply, renderErrorBody(error.retcode, error.retmsg, reqdataOf(request)), statusOf(error.retcode));
}

/** A request fastify refused before routing it (a URL it cannot decode…), in the catalogue's terms. */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendError(request, reply, wireErrorOf(error) ?? WireError.internal());
}

/** A path no route serves: E002. */
export function answerNotFound(request: FastifyRequest, reply: FastifyReply): void {
  sendError(request, reply, WireError.noSuchAddress());
}

/**
 * The error handler: everything thrown by a hook or a route answered from the one catalogue; a
 * failure the catalogue does not know is logged, with its stack, and answered E500.
 */
export function answerThrownWith(log: Logger): (error: unknown, request: FastifyRequest, reply: FastifyReply) => void {
  return function answerThrown(error, request, reply) {
    // A client that went away before its body was whole: nothing was read, and no failure of ours.
    const known = wireErrorOf(error) ?? (request.raw.readableAborted ? WireError.unparsableJson() : undefined);
    if (known === undefined) log.error({ err: error, path: loggedPath(request) }, 'unexpected error');
    // Only the store's faults: a shed or rate-limited request (E503 too) is logged by its response line.
    else if (error instanceof StoreUnavailableError)
      log.warn({ err: error, path: loggedPath(request) }, 'store unavailable');
    sendError(request, reply, known ?? WireError.internal());
  };
}
