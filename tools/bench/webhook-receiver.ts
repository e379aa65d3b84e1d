import { createServer, type Server } from 'node:http';
import { z } from 'zod';

/** What the bench reads of a delivery: its type and the task's title (the lag probes name theirs). */
const deliverySchema = z.object({ type: z.string(), data: z.object({ title: z.string().optional() }) });

/**
 * The hooks' receiver of part W: a local node:http server answering 204 at once, as a receiver
 * that queues its work would. It counts deliveries by type and notes when each titled one came,
 * in performance.now() time, so that a probe's lag is measured on one clock.
 */
export class WebhookReceiver {
  readonly #server: Server;
  readonly #arrivals = new Map<string, number>();
  readonly #counts = new Map<string, number>();
  #lastArrival = performance.now();

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(createServer());
    receiver.#server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.writeHead(204).end();
        receiver.#heard(Buffer.concat(chunks).toString('utf8'));
      });
    });
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
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #heard(body: string): void {
    const at = performance.now();
    this.#lastArrival = at;
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return;
    }
    const parsed = deliverySchema.safeParse(json);
    if (!parsed.success) return;
    const { type, data } = parsed.data;
    this.#counts.set(type, this.count(type) + 1);
    if (data.title !== undefined) this.#arrivals.set(data.title, at);
  }
}
