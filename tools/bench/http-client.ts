import { request } from 'node:http';

/** One request as the load tools send it: `{n}` in path or body may stand for a unique number. */
export interface RequestSpec {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** An answer exactly as it came over the wire: status, headers in order, body bytes undecoded. */
export interface Answer {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

/** Sends one request to the server on loopback `port` and collects the whole raw answer. */
export function send(port: number, spec: RequestSpec, timeoutMs = 120_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = spec.body === undefined ? undefined : Buffer.from(spec.body, 'utf8');
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: spec.method,
        path: spec.path,
        headers: { ...spec.headers, ...(body === undefined ? {} : { 'content-length': String(body.length) }) },
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('error', reject);
        res.once('end', () => {
          const headers: [string, string][] = [];
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i];
            const value = res.rawHeaders[i + 1];
            if (name !== undefined && value !== undefined) headers.push([name, value]);
          }
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
      },
    );
    req.once('timeout', () => req.destroy(new Error(`${spec.method} ${spec.path}: no answer in ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end(body);
  });
}

/** The answer's header value (the first of that name, case-insensitive). */
export function headerOf(answer: Answer, name: string): string | undefined {
  const lower = name.toLowerCase();
  return answer.headers.find(([key]) => key.toLowerCase() === lower)?.[1];
}

/** Sends and insists on a 2xx status, naming the request and the body in the error. */
export async function sendOk(port: number, spec: RequestSpec): Promise<Answer> {
  const answer = await send(port, spec);
  if (answer.status < 200 || answer.status > 299) {
    throw new Error(
      `${spec.method} ${spec.path} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 500)}`,
    );
  }
  return answer;
}

/** Polls `path` until it answers 2xx, or fails after `timeoutMs` (or when `gone()` says the server died). */
export async function waitUntilAnswering(
  port: number,
  spec: RequestSpec,
  timeoutMs: number,
  gone: () => boolean,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone()) throw new Error('the server exited while starting');
    try {
      const answer = await send(port, spec, 2000);
      if (answer.status >= 200 && answer.status < 300) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no answer on port ${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
