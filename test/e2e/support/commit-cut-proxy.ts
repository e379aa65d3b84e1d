import net from 'node:net';
import { COMMIT_FUNCTION } from '../../../src/store/postgres/commit-function.js';

/**
 * The two ways a write commits: `COMMIT` as node-postgres sends it (a simple-protocol Query
 * message, `Q`, its length (4 bytes of length, 7 of text), the statement and a NUL), ending a
 * locked transaction; and the call of the commit function, one statement in its own transaction,
 * sent with its Sync in one write.
 */
const COMMIT_MESSAGES = [
  Buffer.from('Q\u0000\u0000\u0000\u000bCOMMIT\u0000', 'latin1'),
  Buffer.from(`FROM ${COMMIT_FUNCTION}(`, 'latin1'),
];

/**
 * A TCP relay in front of the test PostgreSQL server that can lose one acknowledgement: once
 * armed, it passes the next `COMMIT` a client sends on to the server, closes that connection
 * towards the server right behind it (so the server reads the COMMIT, commits, then sees the
 * client gone), and cuts the client's side without relaying the answer. The client then cannot
 * know whether its transaction was committed; it was. Other connections are not touched.
 */
export class CommitCutProxy {
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;
  private armed: (() => void) | undefined;
  private listenPort = 0;

  private constructor(target: { host: string; port: number }) {
    this.server = net.createServer((client) => this.relay(client, target));
  }

  static async start(target: { host: string; port: number }): Promise<CommitCutProxy> {
    const proxy = new CommitCutProxy(target);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = proxy.server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address');
    proxy.listenPort = address.port;
    return proxy;
  }

  get port(): number {
    return this.listenPort;
  }

  /**
   * Loses the acknowledgement of the next COMMIT; resolves when that connection has been cut and
   * the database has closed its side, which it does only after running the COMMIT (on a busy
   * machine that comes a while after the cut, and a query before it would not see the commit).
   */
  cutAfterNextCommit(): Promise<void> {
    return new Promise((resolve) => (this.armed = resolve));
  }

  /** Stops relaying: cuts every connection and stops listening. */
  async down(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target.port, target.host);
    let cutting = false;
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        // While a COMMIT is being delivered, the server's side closes when the server is done.
        if (!cutting) upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      const cut = this.armed;
      if (cut === undefined || !COMMIT_MESSAGES.some((message) => chunk.includes(message))) {
        if (!upstream.write(chunk)) client.pause();
        return;
      }
      this.armed = undefined;
      cutting = true;
      // The COMMIT goes out followed by an orderly close, so the server reads and runs it; the
      // client's side is cut at once, and the server's answer is read and dropped.
      upstream.unpipe(client);
      upstream.resume();
      upstream.once('close', () => cut());
      upstream.end(chunk);
      client.destroy();
    });
    upstream.on('drain', () => client.resume());
    upstream.pipe(client);
  }
}
