import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { gunzipSync } from 'node:zlib';

export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body as text (gunzipped when the server compressed it). */
  readonly text: string;
}

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'REPORT';
  /** Path and query, e.g. `/v1/tasks?cursor=…`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON text (`application/json`) unless it is already a string or bytes. */
  readonly body?: unknown;
  /** For HTTPS: the certificates to trust, and only those. */
  readonly ca?: string;
  readonly timeoutMs?: number;
  /**
   * Keeps the request open half-sent: it asks `Expect: 100-continue`, writes the first half of the
   * body once the server has taken the headers (so the request is in progress there), and the
   * rest only when `hold` resolves.
   */
  readonly hold?: Promise<void>;
}

export interface PendingRequest {
  /**
   * Resolves when the whole request (with `hold`: the part before it) has been handed to the
   * socket, or when the request failed first.
   */
  readonly sent: Promise<void>;
  /** The answer, or the transport error (reset, refused, …). */
  readonly response: Promise<HttpResponse>;
}

/**
 * One request on a connection of its own (no agent, no keep-alive pool), so every request is a
 * new socket and nothing stays open after the answer.
 */
export function startRequest(origin: string, options: RequestOptions): PendingRequest {
  const url = new URL(options.path, origin);
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string' || Buffer.isBuffer(options.body)
        ? options.body
        : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  if (options.hold !== undefined) headers['expect'] = '100-continue';
  const common = { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, agent: false } as const;
  let markSent: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const response = new Promise<HttpResponse>((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = (res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
      });
    };
    const request =
      url.protocol === 'https:'
        ? https.request(url, { ...common, ...(options.ca === undefined ? {} : { ca: options.ca }) }, onResponse)
        : http.request(url, common, onResponse);
    request.setTimeout(options.timeoutMs ?? 20_000, () => request.destroy(new Error(`no answer from ${url.href}`)));
    request.on('error', (error) => {
      markSent();
      reject(error);
    });
    const { hold } = options;
    if (hold === undefined) {
      request.on('finish', () => markSent());
      request.end(body);
      return;
    }
    const bytes = Buffer.from(body ?? '');
    const half = Math.floor(bytes.length / 2);
    request.flushHeaders();
    request.once('continue', () => {
      request.write(bytes.subarray(0, half), () => markSent());
      void hold.then(() => request.end(bytes.subarray(half)));
    });
  });
  return { sent, response };
}

/** Sends one request and waits for its answer. */
export function request(origin: string, options: RequestOptions): Promise<HttpResponse> {
  return startRequest(origin, options).response;
}

/** The body of an answer as JSON (fails the test with the body when it is not JSON). */
export function jsonOf(response: HttpResponse): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    throw new Error(`not a JSON body (status ${response.status}): ${response.text}`);
  }
}

/** An `Authorization: OAuth <token>` header, as the original clients send it. */
export function oauth(token: string): Record<string, string> {
  return { authorization: `OAuth ${token}` };
}
