/**
 * `serve --trust-proxy`: X-Forwarded-Proto, -Host and -For count only from the peers it names;
 * off by default, so that no client can make the service name itself after a host of its choosing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { jsonOf, request } from './support/http.js';
import { expectOneLine } from './support/one-line.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, makeTempDir, runCli, startServe } from './support/processes.js';

const FORWARDED = {
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'tasks.example.org',
  'x-forwarded-for': '203.0.113.9',
};

async function issuerSeenBy(origin: string): Promise<unknown> {
  const metadata = jsonOf(
    await request(origin, { path: '/.well-known/oauth-authorization-server', headers: FORWARDED }),
  );
  return typeof metadata === 'object' && metadata !== null ? Reflect.get(metadata, 'issuer') : undefined;
}

describe('serve --trust-proxy', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it('ignores forwarded headers by default, and from a peer it does not name', async () => {
    const plain = await startServe({ dataDir: await makeTempDir('no-proxy'), http: true });
    expect(await issuerSeenBy(plain.origin)).toBe(plain.origin);
    const elsewhere = await startServe({
      dataDir: await makeTempDir('other-proxy'),
      http: true,
      args: ['--trust-proxy', '10.1.2.3,192.168.0.0/16'],
    });
    expect(await issuerSeenBy(elsewhere.origin)).toBe(elsewhere.origin);
  });

  it('reads them from a peer it names: by address, or by the name loopback', async () => {
    for (const trusted of ['127.0.0.1', 'loopback']) {
      const server = await startServe({
        dataDir: await makeTempDir('proxy'),
        http: true,
        args: ['--trust-proxy', trusted],
      });
      expect(await issuerSeenBy(server.origin)).toBe('https://tasks.example.org');
      await server.stop();
    }
  });

  it('refuses what is no address, range or name, in one line', async () => {
    const refused = await runCli([
      'serve',
      '--http',
      '--trust-proxy',
      '127.0.0.1,nginx',
      '--data-dir',
      await makeTempDir('bad'),
    ]);
    expectOneLine(refused, /--trust-proxy takes addresses or CIDR ranges.*got "nginx"/, 2);
  });
});
