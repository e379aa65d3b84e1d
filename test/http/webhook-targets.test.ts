/**
 * A webhook receiver costs one bounded slot (issue #24): an answer is read to 64 KiB at most, a
 * redirect is not followed, a receiver that never answers is cut at 10 s; private targets are
 * refused after DNS unless allowed. A hook's deliveries share one kept connection, and one the
 * receiver dropped is replaced at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ReceiverConnections } from '../../src/http/webhooks/connections.js';
import { ANSWER_READ_BYTES, ReceiverConnection } from '../../src/http/webhooks/receiver-connection.js';
import { checkTarget, isPrivateAddress, RefusedTarget, type CheckedTarget } from '../../src/http/webhooks/targets.js';

const servers: Server[] = [];
const opened: ReceiverConnection[] = [];
const connections = new ReceiverConnections();
afterEach(async () => {
  for (const connection of opened.splice(0)) connection.close();
  connections.closeAll();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function connectionTo(target: CheckedTarget): ReceiverConnection {
  const connection = new ReceiverConnection(target);
  opened.push(connection);
  return connection;
}

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

describe('sending to a receiver', () => {
  it('reads an endless answer to 64 KiB and stops there', async () => {
    let written = 0;
    const url = await serve((_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const more = (): void => {
        while (written < 64 * 1024 * 1024 && response.write(chunk)) written += chunk.length;
        if (written < 64 * 1024 * 1024) response.once('drain', more);
      };
      more();
    });
    const outcome = await connectionTo(await checkTarget(url, true)).post({}, '{}');
    expect(outcome).toEqual({ status: 200, error: null });
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(ANSWER_READ_BYTES).toBe(64 * 1024);
  });

  it('does not follow a redirect: it is a failed answer', async () => {
    let followed = false;
    const elsewhere = await serve((_request, response) => {
      followed = true;
      response.end();
    });
    const url = await serve((_request, response) => {
      response.writeHead(307, { location: elsewhere });
      response.end();
    });
    expect(await connectionTo(await checkTarget(url, true)).post({}, '{}')).toEqual({ status: 307, error: null });
    expect(followed).toBe(false);
  });

  it('cuts a receiver that never answers at 10 s', { timeout: 20_000 }, async () => {
    const url = await serve(() => undefined);
    expect(await connectionTo(await checkTarget(url, true)).post({}, '{}')).toEqual({
      status: null,
      error: 'no answer within 10 s',
    });
  });
});

describe('connections to a receiver', () => {
  it("sends one hook's deliveries over one kept connection, and a new one for a new address", async () => {
    const sockets = new Set<unknown>();
    const url = await serve((request, response) => {
      sockets.add(request.socket);
      request.resume();
      request.on('end', () => response.writeHead(204).end());
    });
    const target = await checkTarget(url, true);
    for (let index = 0; index < 5; index += 1) {
      expect(await connections.connectionFor('1/a', target).post({}, '{}')).toEqual({ status: 204, error: null });
    }
    expect(sockets.size).toBe(1);
    // Another hook gets its own connection.
    await connections.connectionFor('1/b', target).post({}, '{}');
    expect(sockets.size).toBe(2);
    const moved = await checkTarget(await serve((_request, response) => response.writeHead(204).end()), true);
    expect(connections.connectionFor('1/a', moved)).not.toBe(connections.connectionFor('1/a', target));
  });

  it('sends again on a new connection when the receiver dropped the kept one', async () => {
    let requests = 0;
    const served = new WeakMap<object, number>();
    const url = await serve((request, response) => {
      requests += 1;
      const before = served.get(request.socket) ?? 0;
      served.set(request.socket, before + 1);
      // The second request on a connection finds it closed, as after a receiver's idle time-out.
      if (before === 1) request.socket.destroy();
      else response.writeHead(204).end();
    });
    const target = await checkTarget(url, true);
    const connection = connectionTo(target);
    expect(await connection.post({}, '{}')).toEqual({ status: 204, error: null });
    expect(await connection.post({}, '{}')).toEqual({ status: 204, error: null });
    expect(requests).toBe(3);
  });
});

describe('checking targets', () => {
  it('knows loopback, private, shared and link-local addresses of both families', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '172.32.0.1']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it('refuses a name or address that leads to one, unless allowed', async () => {
    await expect(checkTarget('https://localhost/hook', false)).rejects.toBeInstanceOf(RefusedTarget);
    await expect(checkTarget('https://[::1]/hook', false)).rejects.toBeInstanceOf(RefusedTarget);
    await expect(checkTarget('https://169.254.169.254/latest', false)).rejects.toBeInstanceOf(RefusedTarget);
    expect((await checkTarget('https://localhost/hook', true)).address).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});
