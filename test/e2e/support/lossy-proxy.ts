import net from 'node:net';

/**
 * A TCP relay in front of a serve process that can lose one answer: once armed, the next bytes
 * the server sends back are not relayed, and that connection is cut. The request itself reached
 * the server and was carried out; the client only sees the connection fail.
 */
export class LossyProxy {
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;
  private armed = false;
  private listenPort = 0;
  /** How many answers were lost. */
  lost = 0;

  private constructor(targetPort: number) {
    this.server = net.createServer((client) => this.relay(client, targetPort));
  }

  static async start(targetPort: number): Promise<LossyProxy> {
    const proxy = new LossyProxy(targetPort);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = proxy.server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address');
    proxy.listenPort = address.port;
    return proxy;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.listenPort}`;
  }

  /** Loses the next answer. */
  loseNextAnswer(): void {
    this.armed = true;
  }

  private relay(client: net.Socket, targetPort: number): void {
    const upstream = net.connect(targetPort, '127.0.0.1');
    this.sockets.add(client);
    this.sockets.add(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (this.armed) {
        this.armed = false;
        this.lost += 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const close = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
