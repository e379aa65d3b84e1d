/**
 * The self-signed certificate names every address the server is reached at (issue #10, item 8):
 * with `--host 0.0.0.0` other devices connect by the machine's name or one of its addresses, and
 * the listening line lists the addresses really served, not only 127.0.0.1.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, makeTempDir, parseLogLines, startServe } from './support/processes.js';

const listeningSchema = z.looseObject({ msg: z.literal('task-service listening'), urls: z.array(z.string()) });

/** This machine's IPv4 addresses, as another device on its networks would use them. */
function ipv4Addresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => entry.family === 'IPv4')
    .map((entry) => entry.address);
}

describe('the self-signed certificate and the addresses served', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterEach(async () => {
    await cleanUpProcesses();
  });

  it('--host 0.0.0.0: the certificate names the host name and every IPv4 address, and the log lists them', async () => {
    const dataDir = await makeTempDir('cert-names');
    const server = await startServe({ dataDir, args: ['--host', '0.0.0.0'] });
    const certificate = new X509Certificate(await readFile(path.join(dataDir, 'tls-cert.pem'), 'utf8'));
    expect(certificate.checkHost('localhost')).toBe('localhost');
    expect(certificate.checkHost(os.hostname())).toBeDefined();
    const addresses = ipv4Addresses();
    expect(addresses).toContain('127.0.0.1');
    for (const address of addresses) expect(certificate.checkIP(address), address).toBe(address);

    const line = parseLogLines(server.stdout())
      .map((entry) => listeningSchema.safeParse(entry))
      .find((parsed) => parsed.success)?.data;
    expect(line?.urls.toSorted()).toEqual(addresses.map((address) => `https://${address}:${server.port}`).toSorted());
  });

  it('--host with one address: the certificate names it besides localhost and the host name', async () => {
    const dataDir = await makeTempDir('cert-one');
    await startServe({ dataDir });
    const certificate = new X509Certificate(await readFile(path.join(dataDir, 'tls-cert.pem'), 'utf8'));
    expect(certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(certificate.checkHost(os.hostname())).toBeDefined();
  });
});
