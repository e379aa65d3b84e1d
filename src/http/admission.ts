import type { FastifyReply, FastifyRequest } from 'fastify';
import { carriesCredential } from './auth.js';
import { BodyWaits, hasBody, type BodyWaitLimits } from './body-waits.js';
import { LoadShedder, type LoadLimits } from './load-shedder.js';
import type { Refusal, ServiceMetrics } from './metrics/metrics.js';
import { WireError } from './wire/errors.js';

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

export interface AdmissionOptions {
  /** Every /v1 request answered E502 (the service is being upgraded). */
  readonly maintenance: boolean;
  readonly loadLimits?: LoadLimits | undefined;
  readonly bodyWaitLimits?: BodyWaitLimits | undefined;
  /** Counts each refusal by its reason; absent: nothing is counted. */
  readonly metrics?: ServiceMetrics | undefined;
  /** Requests never shed: the web app's own files (web-app.ts), served from memory. */
  readonly neverShed?: ((request: FastifyRequest) => boolean) | undefined;
}

/**
 * Which requests get in: none of /v1 in maintenance; past the load limits, none (E503); a body
 * still arriving waits in a bounded room of its own, and counts as work in flight once it is in.
 */
export class Admission {
  readonly #maintenance: boolean;
  readonly #shedder: LoadShedder;
  readonly #bodyWaits: BodyWaits;
  readonly #metrics: ServiceMetrics | undefined;
  /** Requests waiting for changes: admitted, but not counted in flight while they wait. */
  readonly #resting = new WeakSet<object>();
  readonly #neverShed: (request: FastifyRequest) => boolean;

  constructor(options: AdmissionOptions) {
    this.#maintenance = options.maintenance;
    this.#shedder = new LoadShedder(options.loadLimits ?? DEFAULT_LOAD_LIMITS);
    this.#bodyWaits = new BodyWaits(options.bodyWaitLimits ?? DEFAULT_BODY_WAIT_LIMITS);
    this.#metrics = options.metrics;
    this.#neverShed = options.neverShed ?? (() => false);
  }

  start(): void {
    this.#shedder.start();
    this.#bodyWaits.start();
  }

  /** Once the server listens: from then on a turn of the event loop is timed too. */
  listening(): void {
    this.#shedder.timeTurns();
  }

  stop(): void {
    this.#shedder.stop();
    this.#bodyWaits.stop();
  }

  /** On arrival; throws the refusal's WireError. */
  enter(request: FastifyRequest, reply: FastifyReply): void {
    if (this.#maintenance && request.url.startsWith('/v1')) throw WireError.maintenance();
    // A file of the app asked for without a body is a lookup in memory: never shed.
    if (!hasBody(request.raw) && this.#neverShed(request)) return;
    if (!hasBody(request.raw)) {
      if (!this.#shedder.enter()) throw this.#refuse('load');
      reply.raw.once('close', () => this.#leave(reply));
      return;
    }
    if (!this.#shedder.accepts()) throw this.#refuse('load');
    if (!this.#bodyWaits.enter(request.raw, carriesCredential(request))) {
      // The body is not read: the connection cannot carry another request after this answer.
      void reply.header('connection', 'close');
      throw this.#refuse('body_wait');
    }
    reply.raw.once('close', () => this.#bodyWaits.leave(request.raw));
  }

  /** Once the body is in (body-waits.ts): the request now counts as work in flight. */
  bodyArrived(request: FastifyRequest, reply: FastifyReply): void {
    if (!hasBody(request.raw)) return;
    this.#bodyWaits.leave(request.raw);
    if (!this.#shedder.enterWithBody()) throw this.#refuse('load');
    reply.raw.once('close', () => this.#leave(reply));
  }

  /**
   * A request that waits for changes (API.md 4.6) holds no work while it waits: it leaves the
   * count in flight (so ten thousand of them do not shed everyone else) until the returned
   * function counts it again, when it wakes up to read.
   */
  rest(reply: FastifyReply): () => void {
    if (this.#resting.has(reply.raw)) return () => undefined;
    this.#resting.add(reply.raw);
    this.#shedder.leave();
    return () => {
      if (this.#resting.delete(reply.raw)) this.#shedder.reenter();
    };
  }

  #leave(reply: FastifyReply): void {
    // A request that ends while resting was taken off the count already.
    if (!this.#resting.delete(reply.raw)) this.#shedder.leave();
  }

  #refuse(reason: Refusal): WireError {
    this.#metrics?.refuse(reason);
    return WireError.unavailable();
  }
}
