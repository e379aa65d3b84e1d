import http from 'node:http';
import type { HttpResponse } from './http.js';

export interface KeepAliveRequest {
  /** Path and query, e.g. `/v1/tasks?cursor=…`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON text with `application/json`; absent: a GET. */
  readonly body?: unknown;
  readonly timeoutMs?: number;
}

/**
 * One client on one kept-alive plain-HTTP connection, as a busy sync client or a proxy's upstream
 * pool uses the service: requests go one after another on the same socket (reopened only when the
 * server closes it). The answer is read as text; no `Accept-Encoding` is sent, so it is never
 * compressed.
 */
export class KeepAliveClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(readonly origin: string) {}

  request(options: KeepAliveRequest): Promise<HttpResponse> {
    const url = new URL(options.path, this.origin);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    return new Promise<HttpResponse>((resolve, reject) => {
      const request = http.request(
        url,
        { method: body === undefined ? 'GET' : 'POST', headers, agent: this.agent },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      request.setTimeout(options.timeoutMs ?? 20_000, () => request.destroy(new Error(`no answer from ${url.href}`)));
      request.on('error', reject);
      request.end(body);
    });
  }

  /** Closes the kept connection. */
  close(): void {
    this.agent.destroy();
  }
}
