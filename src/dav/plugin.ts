import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ListStreams } from '../http/list-streams.js';
import type { Services } from '../service/services.js';
import { authenticateDav, type DavGate } from './auth.js';
import { deleteCollection, makeCollection, patchCollection } from './collections.js';
import { bodyText, type DavContext } from './context.js';
import { davErrorOf, DavError, errorBody } from './errors.js';
import { deleteObject, getObject, moveObject, putObject } from './objects.js';
import { DAV_ROOT, targetOf, WELL_KNOWN, type DavTarget } from './paths.js';
import { propfind } from './propfind.js';
import { report } from './report.js';
import { mkcolOf, propfindOf, proppatchOf, reportOf, xmlBody } from './requests.js';
import { XML_CONTENT_TYPE } from './context.js';
import { WireError } from '../http/wire/errors.js';

/** The methods of WebDAV and CalDAV that node parses and fastify must be told of. */
const DAV_METHODS = ['PROPFIND', 'PROPPATCH', 'REPORT', 'MKCALENDAR', 'MKCOL', 'MOVE', 'COPY', 'LOCK', 'UNLOCK'];

/** What the service answers to (CALDAV.md section 1); anything else is 405. */
const ALLOWED = ['OPTIONS', 'PROPFIND', 'PROPPATCH', 'REPORT', 'GET', 'HEAD', 'PUT', 'DELETE', 'MKCALENDAR', 'MKCOL'];
const ALL_METHODS = [...new Set([...ALLOWED, 'POST', 'PATCH', ...DAV_METHODS])];

export interface DavDeps {
  readonly services: Services;
  /** The slots of large answers, the same as /v1's lists take. */
  readonly streams: ListStreams;
  readonly gate: DavGate;
  readonly log: Logger;
  /** `serve --no-caldav`: every CalDAV path answers 404. */
  readonly enabled: boolean;
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? '';
}

/** The methods a target allows, for OPTIONS and 405 answers. */
function allowedOn(target: DavTarget): string {
  switch (target.kind) {
    case 'object':
      return 'OPTIONS, PROPFIND, GET, HEAD, PUT, DELETE, MOVE';
    case 'collection':
      return 'OPTIONS, PROPFIND, PROPPATCH, REPORT, DELETE, MKCALENDAR, MKCOL';
    default:
      return 'OPTIONS, PROPFIND';
  }
}

async function handle(deps: DavDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const target = targetOf(pathOf(request));
  const method = request.method;
  if (method === 'OPTIONS') {
    return reply
      .code(200)
      .header('dav', '1, 3, calendar-access')
      .header('allow', target.kind === 'unknown' ? ALLOWED.join(', ') : allowedOn(target))
      .send();
  }
  const grant = await authenticateDav(deps.gate, request);
  const account = grant.account;
  if (target.kind === 'unknown' || ('username' in target && target.username !== account.username))
    throw DavError.notFound();
  const context: DavContext = {
    services: deps.services,
    streams: deps.streams,
    account,
    writable: grant.scope === 'write',
    request,
    reply,
  };
  switch (method) {
    case 'PROPFIND':
      return propfind(context, target, propfindOf(xmlBody(bodyText(request))));
    case 'REPORT':
      return report(context, target, reportOf(xmlBody(bodyText(request))));
    case 'PROPPATCH':
      return patchCollection(context, target, proppatchOf(xmlBody(bodyText(request))));
    case 'MKCALENDAR':
    case 'MKCOL':
      return makeCollection(context, target, mkcolOf(xmlBody(bodyText(request)), method), method);
    default:
      break;
  }
  if (target.kind === 'object') {
    switch (method) {
      case 'GET':
      case 'HEAD':
        return getObject(context, target, method === 'GET');
      case 'PUT':
        return putObject(context, target);
      case 'DELETE':
        return deleteObject(context, target);
      case 'MOVE':
        return moveObject(context, target);
    }
  }
  if (target.kind === 'collection' && method === 'DELETE') return deleteCollection(context, target.segment);
  throw DavError.methodNotAllowed(allowedOn(target));
}

/** The app's own refusals before a CalDAV handler ran: the body limit, the load shedder, the rate limit. */
function refusalOf(error: unknown): DavError | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new DavError(413, 'a CalDAV body is at most 1 MiB');
  if (error instanceof WireError && error.retcode === 'E503')
    return new DavError(503, 'the server is busy: try again in a moment', undefined, { 'retry-after': '1' });
  if (error instanceof WireError && error.retcode === 'E006')
    return new DavError(413, 'a CalDAV body is at most 1 MiB');
  return undefined;
}

function sendDavError(reply: FastifyReply, error: DavError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  return reply.code(error.status).header('content-type', XML_CONTENT_TYPE).send(errorBody(error));
}

/**
 * CalDAV on the app's port (CALDAV.md): `/.well-known/caldav` and everything under `/dav/`, in a
 * scope of its own whose errors are WebDAV's (a status, a precondition, a reason), not /v1's.
 */
export async function registerCalDav(app: FastifyInstance, deps: DavDeps): Promise<void> {
  for (const method of DAV_METHODS) app.addHttpMethod(method, { hasBody: true });
  await app.register(async (scope) => {
    scope.setErrorHandler((error, request, reply) => {
      const known = davErrorOf(error) ?? refusalOf(error);
      if (known === undefined) deps.log.error({ err: error, path: pathOf(request).slice(0, 256) }, 'unexpected error');
      return sendDavError(reply, known ?? new DavError(500, 'internal error'));
    });
    const notServed = async (_request: FastifyRequest, reply: FastifyReply) => sendDavError(reply, DavError.notFound());
    scope.route({
      method: ['GET', 'HEAD', 'PROPFIND', 'OPTIONS'],
      url: WELL_KNOWN,
      handler: deps.enabled
        ? async (_request, reply) => reply.code(301).header('location', DAV_ROOT).send()
        : notServed,
    });
    const handler = deps.enabled
      ? (request: FastifyRequest, reply: FastifyReply) => handle(deps, request, reply)
      : notServed;
    scope.route({ method: ALL_METHODS, url: '/dav', handler });
    scope.route({ method: ALL_METHODS, url: '/dav/*', handler });
  });
}
