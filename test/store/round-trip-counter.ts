import net from 'node:net';

/**
 * A TCP relay in front of the test PostgreSQL server that counts round trips: every query the
 * server answers (a simple query, or an extended one up to its Sync) ends with one ReadyForQuery
 * message ('Z'), so counting those in the server's stream counts the waits a client made.
 */
export class RoundTripCounter {
  #readyForQuery = 0;
  readonly #sockets = new Set<net.Socket>();

  private constructor(private readonly server: net.Server) {}

  static async start(target: { host: string; port: number }): Promise<RoundTripCounter> {
    const server = net.createServer();
    const counter = new RoundTripCounter(server);
    server.on('connection', (client) => counter.#relay(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return counter;
  }

  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the counter has no TCP address');
    return address.port;
  }

  /** Round trips answered since the counter started. */
  get roundTrips(): number {
    return this.#readyForQuery;
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #relay(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target.port, target.host);
    this.#sockets.add(client).add(upstream);
    // The server's stream is a sequence of messages: a type byte, then a length that counts itself.
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5) {
        const length = pending.readUInt32BE(1);
        if (pending.length < 1 + length) break;
        if (pending[0] === 0x5a) this.#readyForQuery += 1;
        pending = pending.subarray(1 + length);
      }
      client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  }
}
