/**
 * One request to the service with fetch (Node 20+ and browsers alike), retried where that is
 * safe: a GET, or a POST carrying an Idempotency-Key, after E503, E502 or a network failure,
 * waiting what Retry-After asks.
 */
import type { Retcode } from '../http/wire/errors.js';
import { TaskServiceError } from './errors.js';
import { unescapeHtml } from './escape.js';

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface RetryPolicy {
  /** Retries after the first attempt (default 4). */
  readonly retries: number;
  /** Wait when the answer names none, doubled each time (default 250 ms). */
  readonly baseDelayMs: number;
  /** No wait is longer than this, whatever Retry-After says (default 30 s). */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseDelayMs: 250, maxDelayMs: 30_000 };

/** Told before each retry: why, after which attempt, and how long it waits. */
export type RetryListener = (event: {
  readonly reason: string;
  readonly attempt: number;
  readonly delayMs: number;
}) => void;

export interface TransportOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly fetch?: Fetch;
  readonly retry?: Partial<RetryPolicy>;
  readonly onRetry?: RetryListener;
}

export interface Request {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: unknown;
  /** Makes a POST safe to retry; the same key is sent on every attempt. */
  readonly idempotencyKey?: string;
}

const RETCODES_OF_STATUS: Readonly<Record<number, Retcode>> = { 502: 'E502', 503: 'E503' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The contract's error body of an answer, or a stand-in naming the status when it was none. */
function errorOf(status: number, text: string): TaskServiceError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isRecord(body) && typeof body['retcode'] === 'string' && typeof body['retmsg'] === 'string') {
    // The retcode is one of the catalogue's (the OpenAPI tests hold the service to it).
    const retcode = body['retcode'] as Retcode;
    const reqdata = typeof body['reqdata'] === 'string' ? body['reqdata'] : '';
    return new TaskServiceError(retcode, unescapeHtml(body['retmsg']), status, unescapeHtml(reqdata));
  }
  return new TaskServiceError(RETCODES_OF_STATUS[status] ?? null, text.slice(0, 200), status, '');
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class Transport {
  private readonly fetch: Fetch;
  private readonly retry: RetryPolicy;

  constructor(private readonly options: TransportOptions) {
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
  }

  private urlOf(request: Request): string {
    const url = new URL(
      request.path,
      this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`,
    );
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.href;
  }

  /** The parsed JSON of a 200 answer; a TaskServiceError for the service's errors. */
  async send(request: Request): Promise<unknown> {
    const retryable = request.method === 'GET' || request.idempotencyKey !== undefined;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.token}`,
      accept: 'application/json',
    };
    if (request.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
    const init: RequestInit = {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    };
    const url = this.urlOf(request);
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await this.fetch(url, init);
      } catch (error) {
        // fetch rejects only when no answer came (refused, reset, DNS): the request may or may not have arrived.
        if (!retryable || attempt > this.retry.retries) throw error;
        await this.wait('network error', attempt, undefined);
        continue;
      }
      const text = await response.text();
      if (response.status === 200) return JSON.parse(text);
      const error = errorOf(response.status, text);
      if (!retryable || attempt > this.retry.retries || (response.status !== 502 && response.status !== 503))
        throw error;
      await this.wait(
        error.retcode ?? `HTTP ${response.status}`,
        attempt,
        retryAfterMs(response.headers.get('retry-after')),
      );
    }
  }

  private async wait(reason: string, attempt: number, askedMs: number | undefined): Promise<void> {
    const delayMs = Math.min(askedMs ?? this.retry.baseDelayMs * 2 ** (attempt - 1), this.retry.maxDelayMs);
    this.options.onRetry?.({ reason, attempt, delayMs });
    await sleep(delayMs);
  }
}
