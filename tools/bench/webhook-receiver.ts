import { createServer, type Server, type Socket } from 'node:net';

/** The type of a delivery, first in its body (`{"type":"task.created",…`). */
const TYPE = /^\{"type":"([a-z.]+)"/;
/** The title of a lag probe's task (bodies without one are not searched further). */
const PROBE_TITLE = /"title":"(lag probe [^"]*)"/;
const HEAD_END = '\r\n\r\n';
const CONTENT_LENGTH = /\r\ncontent-length: *(\d+)/i;

/**
 * The hooks' receiver of part W: answers 204 at once, as a receiver that queues its work would,
 * counts deliveries by type and notes when each lag probe came, in performance.now() time, so
 * that a probe's lag is measured on one clock. It reads HTTP/1.1 off the socket itself, with
 * no HTTP server and no JSON parser, since it shares the machine's two cores with the service
 * measured: a real receiver runs elsewhere, and what it costs here is the rig's, not the service's.
 */
export class WebhookReceiver {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #arrivals = new Map<string, number>();
  readonly #counts = new Map<string, number>();
  #lastArrival = performance.now();

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(createServer());
    receiver.#server.on('connection', (socket) => receiver.#serve(socket));
    await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('the receiver listens on no TCP port');
    return `http://127.0.0.1:${address.port}/hook`;
  }

  /** Deliveries of this type so far. */
  count(type: string): number {
    return this.#counts.get(type) ?? 0;
  }

  /** When the delivery of the task titled so came (performance.now()), if it came. */
  arrivalOf(title: string): number | undefined {
    return this.#arrivals.get(title);
  }

  /** When the last delivery came (performance.now()). */
  get lastArrival(): number {
    return this.#lastArrival;
  }

  /** Resolves once no delivery came for `quietMs`, or after `ms` regardless. */
  async quiet(quietMs: number, ms: number): Promise<void> {
    const deadline = performance.now() + ms;
    while (performance.now() - this.#lastArrival < quietMs && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** Answers each request of the connection once its body is in (the service's are never chunked). */
  #serve(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    socket.setEncoding('latin1');
    let pending = '';
    socket.on('data', (chunk: string) => {
      pending += chunk;
      for (;;) {
        const headEnd = pending.indexOf(HEAD_END);
        if (headEnd === -1) return;
        const length = Number(CONTENT_LENGTH.exec(pending.slice(0, headEnd + 2))?.[1] ?? 0);
        const bodyStart = headEnd + HEAD_END.length;
        if (pending.length < bodyStart + length) return;
        this.#heard(pending.slice(bodyStart, bodyStart + length));
        pending = pending.slice(bodyStart + length);
        socket.write('HTTP/1.1 204 No Content\r\n\r\n');
      }
    });
    socket.on('error', () => socket.destroy());
  }

  #heard(body: string): void {
    const at = performance.now();
    this.#lastArrival = at;
    const type = TYPE.exec(body)?.[1];
    if (type === undefined) return;
    this.#counts.set(type, this.count(type) + 1);
    const title = body.includes('"title":"lag probe') ? PROBE_TITLE.exec(body)?.[1] : undefined;
    if (title !== undefined) this.#arrivals.set(title, at);
  }
}
