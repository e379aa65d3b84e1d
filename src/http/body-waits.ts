import type { IncomingMessage } from 'node:http';

export interface BodyWaitLimits {
  /** Requests whose body is still arriving past which new ones with a body are refused. */
  readonly maxWaiting: number;
  /**
   * Of those, requests that carry no credential at all: a smaller share, so that clients without
   * a token cannot keep the clients that have one from writing.
   */
  readonly maxWaitingWithoutCredential: number;
  /** Slowest average a body may arrive at, once its grace period is over, in bytes per second. */
  readonly minBytesPerSecond: number;
  /** How long a body may take before its rate counts. */
  readonly graceMs: number;
}

interface Waiting {
  readonly startedAt: number;
  readonly bytesReadBefore: number;
  readonly withoutCredential: boolean;
}

const SWEEP_INTERVAL_MS = 500;

/** Bytes read on the request's connection so far (0 for a request injected without a socket). */
function bytesReadOf(request: IncomingMessage): number {
  const bytes: unknown = request.socket?.bytesRead;
  return typeof bytes === 'number' ? bytes : 0;
}

/** Whether the request announces a body (a length above zero, or chunks). */
export function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  if (length !== undefined) return length.trim() !== '0';
  return request.headers['transfer-encoding'] !== undefined;
}

/**
 * Requests whose body is still on its way. They do nothing but wait, so they are not counted as
 * work in flight (load-shedder.ts) until their body is in: a thousand clients trickling a body
 * would otherwise take every slot, token or no token. Instead they have a smaller cap of their
 * own, and a body that arrives slower than a minimum rate is cut off with its connection.
 */
export class BodyWaits {
  readonly #waiting = new Map<IncomingMessage, Waiting>();
  #withoutCredential = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly limits: BodyWaitLimits) {}

  start(): void {
    this.#timer = setInterval(() => this.#sweep(), SWEEP_INTERVAL_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /**
   * Starts waiting for the request's body, or refuses when too many are waiting already (of
   * requests without a credential, when too many of those are).
   */
  enter(request: IncomingMessage, carriesCredential: boolean): boolean {
    if (this.#waiting.size >= this.limits.maxWaiting) return false;
    if (!carriesCredential && this.#withoutCredential >= this.limits.maxWaitingWithoutCredential) return false;
    this.#waiting.set(request, {
      startedAt: performance.now(),
      bytesReadBefore: bytesReadOf(request),
      withoutCredential: !carriesCredential,
    });
    if (!carriesCredential) this.#withoutCredential += 1;
    return true;
  }

  /** The body is in (or the request is over): it no longer waits. */
  leave(request: IncomingMessage): void {
    const waiting = this.#waiting.get(request);
    if (waiting === undefined) return;
    this.#waiting.delete(request);
    if (waiting.withoutCredential) this.#withoutCredential -= 1;
  }

  get waiting(): number {
    return this.#waiting.size;
  }

  #sweep(): void {
    const now = performance.now();
    for (const [request, waiting] of this.#waiting) {
      const elapsedMs = now - waiting.startedAt;
      // A body already whole (it came with the headers) waits for the process, not for the client.
      if (elapsedMs <= this.limits.graceMs || request.complete) continue;
      const received = bytesReadOf(request) - waiting.bytesReadBefore;
      if (received >= (this.limits.minBytesPerSecond * elapsedMs) / 1000) continue;
      // Too slow: no answer could reach a client this slow in time either; the connection goes.
      this.leave(request);
      request.socket.destroy();
    }
  }
}
