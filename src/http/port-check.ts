import { createServer } from 'node:net';

/**
 * Whether `serve` could listen on `host` and `port`: it binds and lets go at once, so that a start
 * that cannot listen fails before it makes anything (a store, a certificate). Rejects with the
 * listen error (EADDRINUSE, EADDRNOTAVAIL, …) for describeListenFailure; port 0 is always free.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
