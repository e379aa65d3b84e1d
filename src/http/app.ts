import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Services } from '../service/services.js';
import { Admission } from './admission.js';
import { AnswerCache } from './answer-cache.js';
import type { Gate } from './auth.js';
import { registerWebAuth } from './auth-pages/scope.js';
import type { BodyWaitLimits } from './body-waits.js';
import { registerCompression } from './compression.js';
import { answerNotFound, answerThrownWith } from './error-handling.js';
import { DEFAULT_STREAM_LIMITS, ListStreams, type StreamLimits } from './list-streams.js';
import type { LoadLimits } from './load-shedder.js';
import { registerMetricsHooks } from './metrics/hooks.js';
import type { ServiceMetrics } from './metrics/metrics.js';
import { registerOpenApiRoutes } from './openapi/routes.js';
import { TokenRateLimiter } from './rate-limit.js';
import type { Readiness } from './readiness.js';
import { registerCalDav } from '../dav/plugin.js';
import { logResponse } from './request-log.js';
import { eachResource, RECORD_RESOURCES } from './resources.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerRecordRoutes } from './routes/records.js';
import { registerSettingsRoutes } from './routes/settings.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { setSafeHeaders } from './safe-headers.js';
import { createServer, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, type ServerTls } from './server-options.js';
import { asksForWebFile, registerWebApp, type WebAppFiles } from './web-app.js';
import { RenderCache } from './wire/render-cache.js';

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
  readonly tls?: ServerTls;
  /**
   * The peers whose X-Forwarded-Proto, -Host and -For are believed (a TLS-ending proxy in front):
   * addresses, CIDR ranges or proxy-addr's names (loopback, …). Absent or empty: none.
   */
  readonly trustProxy?: readonly string[];
  /** Sign-in pages and the OAuth 2 server (ACCOUNTS.md); absent: neither is served. */
  readonly webAuth?: boolean;
  /** The built web app served at `/` (docs/web.md); null or absent: not served. */
  readonly webApp?: WebAppFiles | null;
  /** CalDAV at /dav/ (CALDAV.md): true serves it, false answers its paths 404; absent: not registered. */
  readonly caldav?: boolean;
  /** Figures for `GET /metrics` (served on a port of its own); absent: nothing is counted. */
  readonly metrics?: ServiceMetrics;
  /** `serve --webhook-allow-private`: hooks may be plain http (they may reach private addresses when sent). */
  readonly webhookAllowPrivate?: boolean;
  /** Draining turns `GET /readyz` to 503; absent: ready while the store answers. */
  readonly readiness?: Readiness;
}

/**
 * Rendered records kept for listings, in bytes: some 20,000 records of a usual size (about 600
 * characters). A rendering past 32 KB is not kept (notes of many `&` grow five-fold escaped).
 */
const RENDER_CACHE_BOUNDS = { maxBytes: 32 * 1024 * 1024, maxEntryBytes: 32 * 1024 };

/** List answers kept whole, in bytes; one past 1 MB (with its gzip copy) is not kept. */
const ANSWER_CACHE_BOUNDS = { maxBytes: 32 * 1024 * 1024, maxEntryBytes: 1024 * 1024 };

/** Builds the whole HTTP app without listening: tests drive it in-process, `serve` listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = createServer(
    deps.tls ?? null,
    deps.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    deps.trustProxy ?? [],
  );

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

  const webApp = deps.webApp;
  const admission = new Admission({
    maintenance: deps.maintenance,
    loadLimits: deps.loadLimits,
    bodyWaitLimits: deps.bodyWaitLimits,
    metrics: deps.metrics,
    neverShed: webApp ? (request) => asksForWebFile(webApp, request.method, request.url) : undefined,
  });
  admission.start();
  app.addHook('onListen', async () => admission.listening());
  app.addHook('onClose', async () => admission.stop());
  app.addHook('onRequest', async function admit(request: FastifyRequest, reply: FastifyReply) {
    request.startedAt = process.hrtime.bigint();
    setSafeHeaders(request, reply);
    admission.enter(request, reply);
  });
  // A request counts as work in flight only once its body is in (body-waits.ts).
  app.addHook('preValidation', async function admitBody(request: FastifyRequest, reply: FastifyReply) {
    admission.bodyArrived(request, reply);
  });
  app.addHook('onResponse', async function logAnswer(request: FastifyRequest, reply: FastifyReply) {
    logResponse(deps.log, request, reply);
  });

  app.setNotFoundHandler(answerNotFound);
  if (deps.webApp) registerWebApp(app, deps.webApp, answerNotFound);
  app.setErrorHandler(answerThrownWith(deps.log));

  registerHealthRoutes(app, { storeAnswers: deps.services.health, readiness: deps.readiness });
  registerOpenApiRoutes(app, { signup: deps.services.signIn.signupOpen });
  const gate: Gate = {
    accounts: deps.services.accounts,
    limiter: deps.rateLimitPerSecond
      ? new TokenRateLimiter(deps.rateLimitPerSecond, () => deps.metrics?.refuse('rate_limit'))
      : null,
  };
  registerSettingsRoutes(app, { gate, settings: deps.services.settings });
  registerWebhookRoutes(app, {
    gate,
    webhooks: deps.services.webhooks,
    allowPrivate: deps.webhookAllowPrivate ?? false,
  });
  // Large answers of /v1 and of CalDAV take their slots from one count: each holds a snapshot.
  const streams = new ListStreams(deps.streamLimits ?? DEFAULT_STREAM_LIMITS);
  const recordDeps = {
    gate,
    services: deps.services,
    renderCache: new RenderCache(RENDER_CACHE_BOUNDS),
    answers: new AnswerCache(ANSWER_CACHE_BOUNDS),
    streams,
    admission,
  };
  // Requests waiting for changes are answered at once when the app closes (API.md 4.6).
  app.addHook('preClose', async () => deps.services.waits.shutdown());
  eachResource(deps.resources ?? RECORD_RESOURCES, (resource) => registerRecordRoutes(app, recordDeps, resource));

  if (deps.caldav !== undefined) {
    await registerCalDav(app, {
      services: deps.services,
      streams,
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
      metrics: deps.metrics,
      webAppServed: Boolean(deps.webApp),
    });
  }

  return app;
}
