import net from 'node:net';
import tls from 'node:tls';
import { AnswerReader, MalformedAnswer } from './answer-reader.js';
import { hostOf, type CheckedTarget } from './targets.js';

/** A receiver gets this long for its whole answer (API.md 4.7). */
const DELIVERY_TIMEOUT_MS = 10_000;
/** Of its answer this much is read at most; the rest is not waited for. */
export const ANSWER_READ_BYTES = 64 * 1024;
/** An idle kept connection is closed after this long, sooner when the receiver's Keep-Alive header asks. */
export const IDLE_MS = 4000;
/** A receiver's own keep-alive time is taken this much shorter, so that it is not the one to close. */
const KEEP_ALIVE_MARGIN_MS = 1000;

export interface PostOutcome {
  /** The receiver's status; null when none came (time-out, refused, reset). */
  readonly status: number | null;
  readonly error: string | null;
}

interface Exchanged extends PostOutcome {
  /** It failed on a kept connection the receiver had closed by the time it was used. */
  readonly stale: boolean;
}

/**
 * One kept HTTP/1.1 connection to a hook's checked address: a run of deliveries pays one TCP (and
 * TLS) handshake, not one per delivery. It writes each POST itself and reads the answer with
 * AnswerReader as far as its status and end, which costs the delivery thread about 60% of what
 * node:http's client did per delivery (docs/benchmarks.md, W). Bounded: each exchange is cut at
 * 10 s and its answer read to 64 KiB at most; a redirect is an answer like any other (not
 * followed). One POST at a time: a hook's deliveries go in order.
 */
export class ReceiverConnection {
  #socket: net.Socket | undefined;
  #idle: NodeJS.Timeout | undefined;
  #busy = false;
  /** Between POSTs: bytes nobody asked for end the connection. */
  readonly #unasked = (): void => {
    if (this.#socket !== undefined) this.#drop(this.#socket);
  };

  constructor(readonly target: CheckedTarget) {}

  /** Whether a POST is under way. */
  get busy(): boolean {
    return this.#busy;
  }

  /**
   * POSTs `body` with `headers` (and its type and length). Rejects only on the caller's mistake: a
   * POST while one is under way, a header value with a line break.
   */
  async post(headers: Readonly<Record<string, string>>, body: string): Promise<PostOutcome> {
    if (this.#busy) throw new Error('one POST at a time on a receiver connection');
    this.#busy = true;
    try {
      const request = requestText(this.target.url, headers, body);
      const reused = this.#socket !== undefined;
      const first = await this.#exchange(request);
      // The receiver may close an idle connection just as it is reused: a new one is made.
      const { status, error } = reused && first.stale ? await this.#exchange(request) : first;
      return { status, error };
    } finally {
      this.#busy = false;
    }
  }

  close(): void {
    clearTimeout(this.#idle);
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  #exchange(request: RequestText): Promise<Exchanged> {
    clearTimeout(this.#idle);
    this.#socket?.off('data', this.#unasked);
    const socket = this.#socket ?? this.#connect();
    this.#socket = socket;
    const reader = new AnswerReader();
    let read = 0;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: Exchanged): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('end', onClosed);
        socket.off('close', onClosed);
        socket.off('error', onError);
        if (reader.keep && !socket.destroyed) this.#keepIdle(socket, reader.keepAliveMs);
        else this.#drop(socket);
        resolve(outcome);
      };
      const cut = (error: string | null): void => {
        const status = reader.status;
        settle({ status, error: status === null ? error : null, stale: read === 0 });
      };
      const onData = (chunk: Buffer): void => {
        read += chunk.length;
        try {
          if (reader.feed(chunk)) settle({ status: reader.status, error: null, stale: false });
          else if (read >= ANSWER_READ_BYTES) cut('no answer within the first 64 KiB');
        } catch (error) {
          if (!(error instanceof MalformedAnswer)) throw error;
          settle({ status: null, error: error.message, stale: false });
        }
      };
      const onClosed = (): void => {
        if (reader.closed()) settle({ status: reader.status, error: null, stale: false });
        else cut('the connection closed before an answer');
      };
      const onError = (error: Error): void => cut(error.message);
      const timer = setTimeout(
        () => settle({ status: null, error: 'no answer within 10 s', stale: false }),
        DELIVERY_TIMEOUT_MS,
      );
      socket.on('data', onData);
      socket.once('end', onClosed);
      socket.once('close', onClosed);
      socket.on('error', onError);
      socket.cork();
      socket.write(request.head, 'latin1');
      socket.write(request.body, 'utf8');
      socket.uncork();
    });
  }

  /** A new connection to the checked address (no lookup: it is an IP), the URL's host name kept for TLS. */
  #connect(): net.Socket {
    const { url, address } = this.target;
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const hostname = hostOf(url);
    const socket =
      url.protocol === 'https:'
        ? // The certificate is checked against the URL's name (servername), not the address connected to.
          tls.connect({ host: address, port, ...(net.isIP(hostname) === 0 ? { servername: hostname } : {}) })
        : net.connect({ host: address, port });
    socket.setNoDelay(true);
    // Its close or error, also between POSTs, forgets it.
    socket.on('error', () => this.#drop(socket));
    socket.on('close', () => this.#drop(socket));
    return socket;
  }

  #keepIdle(socket: net.Socket, receiverMs: number | undefined): void {
    const idleMs = Math.min(IDLE_MS, (receiverMs ?? Infinity) - KEEP_ALIVE_MARGIN_MS);
    if (idleMs <= 0) {
      this.#drop(socket);
      return;
    }
    socket.on('data', this.#unasked);
    this.#idle = setTimeout(() => this.#drop(socket), idleMs).unref();
  }

  #drop(socket: net.Socket): void {
    socket.destroy();
    if (this.#socket !== socket) return;
    clearTimeout(this.#idle);
    this.#socket = undefined;
  }
}

interface RequestText {
  readonly head: string;
  readonly body: string;
}

/** The request's head and body, written corked: one write (and one TCP segment when it fits). */
function requestText(url: URL, headers: Readonly<Record<string, string>>, body: string): RequestText {
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  const all = { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  for (const [name, value] of Object.entries(all)) {
    // The sender's own values (ids, a signature, a time): a line break would start another header.
    if (value.includes('\n') || value.includes('\r')) throw new Error(`a header value with a line break: ${name}`);
    head += `${name}: ${value}\r\n`;
  }
  return { head: `${head}\r\n`, body };
}
