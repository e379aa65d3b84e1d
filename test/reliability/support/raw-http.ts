/**
 * Raw HTTP/1.1 over a plain socket, for what no HTTP client sends: malformed requests, trickled
 * headers. Reads everything the server writes back and splits it into answers.
 */
import net from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface RawExchange {
  /** The answers, in order (pipelined requests get one each). */
  readonly answers: readonly RawAnswer[];
  /** Bytes after the last whole answer that do not make one: an answer broken off, or garbage. */
  readonly rest: string;
  /** Whether the server closed the connection (else the client gave up waiting). */
  readonly closed: boolean;
  /** From connecting until the server closed, or until the client gave up. */
  readonly ms: number;
}

/** Splits what a server wrote into answers (Content-Length framed; these answers never chunk). */
function parseAnswers(text: string): { answers: RawAnswer[]; rest: string } {
  const answers: RawAnswer[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (!rest.startsWith('HTTP/1.1 ') || end === -1) return { answers, rest };
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? '0');
    const body = Buffer.from(rest.slice(end + 4), 'latin1');
    if (body.length < length) return { answers, rest };
    answers.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: body.subarray(0, length).toString('utf8'),
    });
    rest = body.subarray(length).toString('latin1');
  }
}

export interface RawOptions {
  /** Parts written one after another with `gapMs` between them (a trickle); else one write. */
  readonly parts?: readonly Buffer[];
  readonly gapMs?: number;
  /** Give up after this long without the server closing. */
  readonly waitMs?: number;
}

/** Sends `bytes` (or `options.parts`) on a new connection and collects what comes back. */
export function rawExchange(port: number, bytes: Buffer, options: RawOptions = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: '127.0.0.1', port });
    let timer: NodeJS.Timeout | undefined;
    let trickle: NodeJS.Timeout | undefined;
    const finish = (closed: boolean): void => {
      clearTimeout(timer);
      clearInterval(trickle);
      socket.destroy();
      const { answers, rest } = parseAnswers(Buffer.concat(chunks).toString('latin1'));
      resolve({ answers, rest, closed, ms: performance.now() - started });
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      const parts = [...(options.parts ?? [bytes])];
      const writeNext = (): void => {
        const part = parts.shift();
        if (part === undefined) {
          clearInterval(trickle);
          return;
        }
        if (!socket.destroyed) socket.write(part);
      };
      writeNext();
      if (parts.length > 0) trickle = setInterval(writeNext, options.gapMs ?? 1000);
      timer = setTimeout(() => finish(false), options.waitMs ?? 3000);
    });
  });
}
