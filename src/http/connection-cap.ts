import type { Server } from 'node:net';

/**
 * Refuses a new connection (closing it at once) when its address already holds this many. Behind
 * a reverse proxy every connection comes from the proxy's address, so the cap is well above the
 * concurrency one server carries (the overload proof holds 2,000 connections from one address).
 */
export function capConnectionsPerAddress(server: Server, maxPerAddress: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > maxPerAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
