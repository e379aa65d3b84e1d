/**
 * A client that asks for an answer, takes its first bytes and then stops reading, as a stalled
 * or hostile reader of a large list would (issue #16, 3).
 */
import net from 'node:net';

export interface StalledReader {
  readonly status: Promise<number>;
  /** Everything received, once the connection closed (or `waitMs` passed: then `closed` is false). */
  finish(waitMs: number): Promise<{ closed: boolean; text: string }>;
}

/** A client that sends a GET, takes the first bytes of its answer and then stops reading. */
export function stalledReader(port: number, path: string, token: string): StalledReader {
  const socket = net.connect({ host: '127.0.0.1', port });
  let text = '';
  let closed = false;
  const closing = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closing.then(() => (closed = true));
  socket.on('error', () => undefined);
  socket.setEncoding('latin1');
  const status = new Promise<number>((resolve) => {
    socket.once('data', (first: string) => {
      text += first;
      socket.pause();
      resolve(Number(first.slice(9, 12)));
    });
    socket.once('close', () => resolve(0));
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: OAuth ${token}\r\n\r\n`);
  return {
    status,
    async finish(waitMs) {
      socket.on('data', (more: string) => (text += more));
      socket.resume();
      await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, waitMs))]);
      socket.destroy();
      return { closed, text };
    },
  };
}
