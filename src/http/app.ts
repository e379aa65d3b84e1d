import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Services } from '../service/services.js';
import { DomainError, StoreUnavailableError } from '../domain/errors.js';
import { registerCompression } from './compression.js';
import { BODY_LIMIT_BYTES, bodyEchoOf } from './request-body.js';
import { carriesCredential, type Gate } from './auth.js';
import { LoadShedder, type LoadLimits } from './load-shedder.js';
import { BodyWaits, hasBody, type BodyWaitLimits } from './body-waits.js';
import { capConnectionsPerAddress } from './connection-cap.js';
import { TokenRateLimiter } from './rate-limit.js';
import { rawPath, rawQuery } from './query.js';
import { registerRecordRoutes } from './routes/records.js';
import { eachResource, RECORD_RESOURCES } from './resources.js';
import { registerSettingsRoutes } from './routes/settings.js';
import { sendJson } from './send.js';
import { fromProblem, renderErrorBody, statusOf, WireError } from './wire/errors.js';
import { HEALTH_OK } from './wire/envelopes.js';
import { rawErrorResponse } from './wire/raw-answer.js';
import { RenderCache } from './wire/render-cache.js';
import { AnswerCache } from './answer-cache.js';
import { DEFAULT_STREAM_LIMITS, ListStreams, type StreamLimits } from './list-streams.js';
import { queryWithoutToken } from './wire/reqdata.js';
import { registerWebAuth } from './auth-pages/scope.js';
import { registerOpenApiRoutes } from './openapi/routes.js';
import { registerWebApp, type WebAppFiles } from './web-app.js';
import { registerMetricsHooks } from './metrics/hooks.js';
import type { Refusal, ServiceMetrics } from './metrics/metrics.js';
import type { Readiness } from './readiness.js';
import { registerCalDav } from '../dav/plugin.js';

export interface AppDeps {
  readonly services: Services;
  /** The synced resources; RECORD_RESOURCES unless a test observes them. */
  readonly resources?: typeof RECORD_RESOURCES;
  readonly log: Logger;
  readonly maintenance: boolean;
  /** Requests per second per token; null: no limit. */
  readonly rateLimitPerSecond?: number | null;
  readonly loadLimits?: LoadLimits;
  /** Requests waiting for their body: their own cap and the slowest rate allowed. */
  readonly bodyWaitLimits?: BodyWaitLimits;
  /** Large list answers streaming at once (per process, per account) and their deadlines. */
  readonly streamLimits?: StreamLimits;
  /** Connections one client address may hold at once. */
  readonly maxConnectionsPerAddress?: number;
  /** TLS key and certificate (PEM); null serves plain HTTP. */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer } | null;
  /** Sign-in pages and the OAuth 2 server (ACCOUNTS.md); absent: neither is served. */
  readonly webAuth?: boolean;
  /** The built web app served at `/` (docs/web.md); null or absent: not served. */
  readonly webApp?: WebAppFiles | null;
  /** CalDAV at /dav/ (CALDAV.md): true serves it, false answers its paths 404; absent: not registered. */
  readonly caldav?: boolean;
  /** Figures for `GET /metrics` (served on a port of its own); absent: nothing is counted. */
  readonly metrics?: ServiceMetrics;
  /** Draining turns `GET /readyz` to 503; absent: ready while the store answers. */
  readonly readiness?: Readiness;
}

const HEADERS_TIMEOUT_MS = 10_000;

/**
 * How often node looks for connections past the header and request time-outs. Its default, 30 s,
 * let a client trickling its headers hold on for up to 40 s instead of 10.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** A TLS client must finish its handshake this fast (node's default: 120 s). */
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * A connection on which nothing moves (no byte read or written) for this long is closed: a
 * client that stops reading its answer included. Longer than every other time-out here.
 */
const SOCKET_INACTIVITY_TIMEOUT_MS = 60_000;

/** Options of node's HTTP server, for plain HTTP and HTTPS alike. */
const SERVER_OPTIONS = {
  connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  // Host names nothing here, and node's own refusal of a request without it has no JSON body.
  requireHostHeader: false,
} as const;

/**
 * Rendered records kept for listings, in bytes: some 20,000 records of a usual size (about 600
 * characters). A rendering past 32 KB is not kept (notes of many `&` grow five-fold escaped).
 */
const RENDER_CACHE_BOUNDS = { maxBytes: 32 * 1024 * 1024, maxEntryBytes: 32 * 1024 };

/** List answers kept whole, in bytes; one past 1 MB (with its gzip copy) is not kept. */
const ANSWER_CACHE_BOUNDS = { maxBytes: 32 * 1024 * 1024, maxEntryBytes: 1024 * 1024 };

/** Seconds a client should wait before retrying an E503. */
const RETRY_AFTER_SECONDS = '1';

/** Past these, new requests are refused with E503 rather than queued into a time-out. */
const DEFAULT_LOAD_LIMITS: LoadLimits = { maxInFlight: 1024, maxEventLoopDelayMs: 1000, maxTurnMs: 50 };

/**
 * Bodies still arriving: at most 256 at once (a quarter of the in-flight cap), 64 of them from
 * requests without any credential, each at 1 KiB/s on average once its first 2 seconds are over
 * (a 1 MiB body then may take up to about 17 minutes).
 */
const DEFAULT_BODY_WAIT_LIMITS: BodyWaitLimits = {
  maxWaiting: 256,
  maxWaitingWithoutCredential: 64,
  minBytesPerSecond: 1024,
  graceMs: 2000,
};

/** Above the 2,000 connections the overload proof holds from one address (a proxy's, say). */
const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 4096;

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
  if (known !== undefined && socket.writable) socket.write(rawErrorResponse(known));
  socket.destroy();
}

function reqdataOf(request: FastifyRequest): string {
  return request.method === 'POST' ? bodyEchoOf(request) : queryWithoutToken(rawQuery(request));
}

/** Paths are logged at most this long: a 16 KiB URL must not make every log line 16 KiB. */
const LOGGED_PATH_CHARS = 256;

/** The request's path (never its query) as logged: cut short, with a mark where it was cut. */
function loggedPath(request: FastifyRequest): string {
  const path = rawPath(request);
  return path.length <= LOGGED_PATH_CHARS ? path : `${path.slice(0, LOGGED_PATH_CHARS)}…`;
}

/** Answers of the API and of CalDAV hold an account's data: no cache on the way may keep them. */
function markUncacheable(request: FastifyRequest, reply: FastifyReply): void {
  const path = rawPath(request);
  if (path.startsWith('/v1') || path.startsWith('/dav')) void reply.header('cache-control', 'no-store');
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: WireError): void {
  request.retcode = error.retcode;
  // Also set by the onRequest hook; repeated here for the errors fastify raises before any hook.
  void reply.header('x-content-type-options', 'nosniff');
  markUncacheable(request, reply);
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
      ? {
          https: {
            key: deps.tls.key,
            cert: deps.tls.cert,
            minVersion: 'TLSv1.2' as const,
            handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
            ...SERVER_OPTIONS,
          },
        }
      : { http: SERVER_OPTIONS }),
    // Fastify types an HTTPS app by its raw server; routes and hooks are the same for both and
    // nothing here touches the raw server, so both are handled as the default instance type.
  }) as unknown as FastifyInstance;

  // A client that trickles its headers (slow loris) is cut off after this long.
  app.server.headersTimeout = HEADERS_TIMEOUT_MS;
  app.server.timeout = SOCKET_INACTIVITY_TIMEOUT_MS;
  capConnectionsPerAddress(app.server, deps.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS);

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

  // First, so that requests refused by the hooks below are counted too.
  if (deps.metrics !== undefined) registerMetricsHooks(app, deps.metrics);
  const refuse = (reason: Refusal): WireError => {
    deps.metrics?.refuse(reason);
    return WireError.unavailable();
  };

  const shedder = new LoadShedder(deps.loadLimits ?? DEFAULT_LOAD_LIMITS);
  shedder.start();
  const bodyWaits = new BodyWaits(deps.bodyWaitLimits ?? DEFAULT_BODY_WAIT_LIMITS);
  bodyWaits.start();
  app.addHook('onListen', async () => shedder.timeTurns());
  app.addHook('onClose', async () => {
    shedder.stop();
    bodyWaits.stop();
  });
  const gate: Gate = {
    accounts: deps.services.accounts,
    limiter: deps.rateLimitPerSecond
      ? new TokenRateLimiter(deps.rateLimitPerSecond, () => deps.metrics?.refuse('rate_limit'))
      : null,
  };

  app.addHook('onRequest', async (request, reply) => {
    request.startedAt = process.hrtime.bigint();
    void reply.header('x-content-type-options', 'nosniff');
    markUncacheable(request, reply);
    if (deps.maintenance && request.url.startsWith('/v1')) throw WireError.maintenance();
    if (!hasBody(request.raw)) {
      if (!shedder.enter()) throw refuse('load');
      reply.raw.once('close', () => shedder.leave());
      return;
    }
    if (!shedder.accepts()) throw refuse('load');
    if (!bodyWaits.enter(request.raw, carriesCredential(request))) {
      // The body is not read: the connection cannot carry another request after this answer.
      void reply.header('connection', 'close');
      throw refuse('body_wait');
    }
    reply.raw.once('close', () => bodyWaits.leave(request.raw));
  });

  // A request counts as work in flight only once its body is in (body-waits.ts).
  app.addHook('preValidation', async (request, reply) => {
    if (!hasBody(request.raw)) return;
    bodyWaits.leave(request.raw);
    if (!shedder.enterWithBody()) throw refuse('load');
    reply.raw.once('close', () => shedder.leave());
  });

  app.addHook('onResponse', async (request, reply) => {
    const micros = Number((process.hrtime.bigint() - request.startedAt) / 1000n);
    deps.log.info(
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
  });

  const notFound = (request: FastifyRequest, reply: FastifyReply): void =>
    sendError(request, reply, WireError.noSuchAddress());
  app.setNotFoundHandler(notFound);
  if (deps.webApp) registerWebApp(app, deps.webApp, notFound);

  app.setErrorHandler((error, request, reply) => {
    // A client that went away before its body was whole: nothing was read, and no failure of ours.
    const known = wireErrorOf(error) ?? (request.raw.readableAborted ? WireError.unparsableJson() : undefined);
    if (known === undefined) deps.log.error({ err: error, path: loggedPath(request) }, 'unexpected error');
    // Only the store's faults: a shed or rate-limited request (E503 too) is logged by its response line.
    else if (error instanceof StoreUnavailableError)
      deps.log.warn({ err: error, path: loggedPath(request) }, 'store unavailable');
    sendError(request, reply, known ?? WireError.internal());
  });

  app.get('/healthz', async (_request, reply) => {
    await deps.services.health();
    return sendJson(reply, HEALTH_OK);
  });

  // Liveness: the process answers. Readiness: it is not draining and its store answers.
  app.get('/livez', async (_request, reply) => sendJson(reply, HEALTH_OK));
  app.get('/readyz', async (_request, reply) => {
    if (deps.readiness?.draining === true) throw WireError.unavailable();
    await deps.services.health();
    return sendJson(reply, HEALTH_OK);
  });

  registerOpenApiRoutes(app);
  registerSettingsRoutes(app, { gate, settings: deps.services.settings });
  const recordDeps = {
    gate,
    services: deps.services,
    renderCache: new RenderCache(RENDER_CACHE_BOUNDS),
    answers: new AnswerCache(ANSWER_CACHE_BOUNDS),
    streams: new ListStreams(deps.streamLimits ?? DEFAULT_STREAM_LIMITS),
  };
  eachResource(deps.resources ?? RECORD_RESOURCES, (resource) => registerRecordRoutes(app, recordDeps, resource));

  if (deps.caldav !== undefined) {
    await registerCalDav(app, {
      services: deps.services,
      gate: {
        accounts: deps.services.accounts,
        signIn: deps.services.signIn,
        admit: gate.limiter === null ? null : (token) => gate.limiter?.admit(token) ?? true,
      },
      log: deps.log,
      enabled: deps.caldav,
    });
  }

  if (deps.webAuth === true) {
    registerWebAuth(app, {
      signIn: deps.services.signIn,
      oauth: deps.services.oauth,
      access: deps.services.access,
      portability: deps.services.portability,
      log: deps.log,
      webAppServed: Boolean(deps.webApp),
    });
  }

  return app;
}
