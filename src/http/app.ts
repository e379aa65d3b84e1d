import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AccountService } from '../service/accounts.js';
import type { ListingService } from '../service/listing.js';
import type { SettingsService } from '../service/settings.js';
import type { TaskService } from '../service/tasks.js';
import type { TaskInput } from '../domain/task.js';
import type { LabelInput } from '../domain/label.js';
import type { LabelService } from '../service/labels.js';
import { DomainError } from '../domain/errors.js';
import { StoreUnavailableError } from '../store/store.js';
import { registerCompression } from './compression.js';
import { BODY_LIMIT_BYTES, bodyTextOf } from './request-body.js';
import type { Gate } from './auth.js';
import { LoadShedder, type LoadLimits } from './load-shedder.js';
import { TokenRateLimiter } from './rate-limit.js';
import { rawPath, rawQuery } from './query.js';
import { registerRecordRoutes } from './routes/records.js';
import { registerSettingsRoutes } from './routes/settings.js';
import { readTaskBody } from './schemas/task.js';
import { readContextBody, readProjectBody } from './schemas/label.js';
import { JSON_CONTENT_TYPE, sendJson } from './send.js';
import { fromProblem, renderErrorBody, statusOf, WireError } from './wire/errors.js';
import { renderContext, renderProject, renderTask } from './wire/render.js';
import { RenderCache } from './wire/render-cache.js';
import { AnswerCache } from './answer-cache.js';

export interface AppDeps {
  readonly accounts: AccountService;
  readonly listing: ListingService;
  readonly tasks: TaskService;
  readonly labels: LabelService;
  readonly settings: SettingsService;
  /** Resolves when the store answers; rejects otherwise. */
  readonly health: () => Promise<void>;
  readonly log: Logger;
  readonly maintenance: boolean;
  /** Requests per second per token; null: no limit. */
  readonly rateLimitPerSecond?: number | null;
  readonly loadLimits?: LoadLimits;
  /** TLS key and certificate (PEM); null serves plain HTTP. */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer } | null;
}

const HEADERS_TIMEOUT_MS = 10_000;

/**
 * How often node looks for connections past the header and request time-outs. Its default, 30 s,
 * let a client trickling its headers hold on for up to 40 s instead of 10.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** Options of node's HTTP server, for plain HTTP and HTTPS alike. */
const SERVER_OPTIONS = {
  connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  // Host names nothing here, and node's own refusal of a request without it has no JSON body.
  requireHostHeader: false,
} as const;

/** Rendered records kept for listings: about 600 bytes each, so some 30 MB at most. */
const RENDER_CACHE_ENTRIES = 50_000;

/** List answers kept whole, in bytes. */
const ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

/** Seconds a client should wait before retrying an E503. */
const RETRY_AFTER_SECONDS = '1';

/** Past these, new requests are refused with E503 rather than queued into a time-out. */
const DEFAULT_LOAD_LIMITS: LoadLimits = { maxInFlight: 1024, maxEventLoopDelayMs: 1000, maxTurnMs: 50 };

declare module 'fastify' {
  interface FastifyRequest {
    startedAt: bigint;
    retcode: string | undefined;
  }
}

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
function answerClientError(error: Error, socket: Duplex): void {
  const known = clientErrorOf(error);
  if (known !== undefined && socket.writable) {
    const body = renderErrorBody(known.retcode, known.retmsg, '');
    const status = statusOf(known.retcode);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function reqdataOf(request: FastifyRequest): string {
  return request.method === 'POST' ? bodyTextOf(request) : rawQuery(request);
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: WireError): void {
  request.retcode = error.retcode;
  // Also set by the onRequest hook; repeated here for the errors fastify raises before any hook.
  void reply.header('x-content-type-options', 'nosniff');
  if (error.retcode === 'E401') void reply.header('www-authenticate', 'Bearer realm="task-service"');
  if (error.retcode === 'E503') void reply.header('retry-after', RETRY_AFTER_SECONDS);
  sendJson(reply, renderErrorBody(error.retcode, error.retmsg, reqdataOf(request)), statusOf(error.retcode));
}

/** Builds the whole HTTP app without listening: tests drive it in-process, `serve` listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    exposeHeadRoutes: false,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: 30_000,
    keepAliveTimeout: 10_000,
    // A URL fastify cannot decode is answered by the catalogue too, not with fastify's own body.
    frameworkErrors: (error, request, reply) => sendError(request, reply, wireErrorOf(error) ?? WireError.internal()),
    clientErrorHandler: answerClientError,
    ...(deps.tls
      ? { https: { key: deps.tls.key, cert: deps.tls.cert, minVersion: 'TLSv1.2' as const, ...SERVER_OPTIONS } }
      : { http: SERVER_OPTIONS }),
    // Fastify types an HTTPS app by its raw server; routes and hooks are the same for both and
    // nothing here touches the raw server, so both are handled as the default instance type.
  }) as unknown as FastifyInstance;

  // A client that trickles its headers (slow loris) is cut off after this long.
  app.server.headersTimeout = HEADERS_TIMEOUT_MS;

  // Responses only: request bodies are decoded by readJsonBody, which applies the body limit
  // after gunzip and answers a broken stream with E001.
  registerCompression(app);

  app.decorateRequest('decodedBody', null);
  app.decorateRequest('grant', null);
  app.decorateRequest('retcode', undefined);
  app.decorateRequest('startedAt', 0n);

  app.removeAllContentTypeParsers();
  // Every body is taken as bytes; the routes decide (E005, gzip, E001) in the contract's order.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const shedder = new LoadShedder(deps.loadLimits ?? DEFAULT_LOAD_LIMITS);
  shedder.start();
  app.addHook('onListen', async () => shedder.timeTurns());
  app.addHook('onClose', async () => shedder.stop());
  const gate: Gate = {
    accounts: deps.accounts,
    limiter: deps.rateLimitPerSecond ? new TokenRateLimiter(deps.rateLimitPerSecond) : null,
  };

  app.addHook('onRequest', async (request, reply) => {
    request.startedAt = process.hrtime.bigint();
    void reply.header('x-content-type-options', 'nosniff');
    if (!shedder.enter()) throw WireError.unavailable();
    reply.raw.once('close', () => shedder.leave());
    if (deps.maintenance && request.url.startsWith('/v1')) throw WireError.maintenance();
  });

  app.addHook('onResponse', async (request, reply) => {
    const micros = Number((process.hrtime.bigint() - request.startedAt) / 1000n);
    deps.log.info(
      {
        method: request.method,
        path: rawPath(request),
        status: reply.statusCode,
        retcode: request.retcode,
        account: request.grant?.account.id,
        us: micros,
      },
      'response',
    );
  });

  app.setNotFoundHandler((request, reply) => sendError(request, reply, WireError.noSuchAddress()));

  app.setErrorHandler((error, request, reply) => {
    // A client that went away before its body was whole: nothing was read, and no failure of ours.
    const known = wireErrorOf(error) ?? (request.raw.readableAborted ? WireError.unparsableJson() : undefined);
    if (known === undefined) deps.log.error({ err: error, path: rawPath(request) }, 'unexpected error');
    // Only the store's faults: a shed or rate-limited request (E503 too) is logged by its response line.
    else if (error instanceof StoreUnavailableError) deps.log.warn({ err: error, path: rawPath(request) }, 'store unavailable');
    sendError(request, reply, known ?? WireError.internal());
  });

  app.get('/healthz', async (_request, reply) => {
    await deps.health();
    return sendJson(reply, '{"status":"ok"}');
  });

  registerSettingsRoutes(app, { gate, settings: deps.settings });
  const recordDeps = {
    gate,
    listing: deps.listing,
    renderCache: new RenderCache(RENDER_CACHE_ENTRIES),
    answers: new AnswerCache(ANSWER_CACHE_BYTES),
  };
  registerRecordRoutes<'task', TaskInput>(app, recordDeps, {
    path: 'tasks',
    kind: 'task',
    render: renderTask,
    readBody: readTaskBody,
    upsert: (account, inputs, asArray, answering) => deps.tasks.upsert(account, inputs, asArray, answering),
  });
  registerRecordRoutes<'project', LabelInput>(app, recordDeps, {
    path: 'projects',
    kind: 'project',
    render: renderProject,
    readBody: readProjectBody,
    upsert: (account, inputs, asArray, answering) => deps.labels.upsertProjects(account, inputs, asArray, answering),
  });
  registerRecordRoutes<'context', LabelInput>(app, recordDeps, {
    path: 'contexts',
    kind: 'context',
    render: renderContext,
    readBody: readContextBody,
    upsert: (account, inputs, asArray, answering) => deps.labels.upsertContexts(account, inputs, asArray, answering),
  });

  return app;
}
