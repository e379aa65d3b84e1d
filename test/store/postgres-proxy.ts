import net from 'node:net';

/**
 * A TCP relay in front of the test PostgreSQL server that a test can switch off and on, to play
 * a database server that goes away (connections cut, new ones refused) and comes back on the
 * same address.
 */
export class SwitchableProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly target: { host: string; port: number },
    private listenPort: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<SwitchableProxy> {
    const proxy = new SwitchableProxy(target, 0);
    await proxy.up();
    return proxy;
  }

  get port(): number {
    return this.listenPort;
  }

  /** Starts relaying again on the same port. */
  async up(): Promise<void> {
    const server = net.createServer((client) => this.relay(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listenPort, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address');
    this.listenPort = address.port;
    this.server = server;
  }

  /** Cuts every relayed connection and refuses new ones until `up`. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      // A cut connection errors on both ends; the relay just drops them.
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
