/**
 * A client that opens a TCP connection to the HTTPS port and never completes its TLS handshake
 * (issue #16, 5): the server closes it after 10 s (node's default was 120 s), and serves others
 * meanwhile.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawExchange } from '../reliability/support/raw-http.js';
import { request } from './support/http.js';
import { cleanUpProcesses, makeTempDir, startServe } from './support/processes.js';

const HANDSHAKE_TIMEOUT_MS = 10_000;

describe('TLS handshake time-out: serve over HTTPS', () => {
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it(
    'closes connections that never finish their handshake after 10 s, serving others meanwhile',
    { timeout: 60_000 },
    async () => {
      const dataDir = await makeTempDir('tls-handshake');
      const server = await startServe({ dataDir });
      const ca = await readFile(path.join(dataDir, 'tls-cert.pem'), 'utf8');
      // Silent clients, and one that sends the first bytes of a ClientHello and stops.
      const stalled = [
        ...Array.from({ length: 5 }, () => rawExchange(server.port, Buffer.alloc(0), { waitMs: 30_000 })),
        rawExchange(server.port, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]), { waitMs: 30_000 }),
      ];
      const health = await request(server.origin, { path: '/healthz', ca });
      expect(health.text).toBe('{"status":"ok"}');
      for (const exchange of await Promise.all(stalled)) {
        expect(exchange.closed).toBe(true);
        expect(exchange.ms).toBeGreaterThanOrEqual(HANDSHAKE_TIMEOUT_MS - 500);
        expect(exchange.ms).toBeLessThan(HANDSHAKE_TIMEOUT_MS + 3000);
      }
    },
  );
});
