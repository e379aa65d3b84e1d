import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import tls from 'node:tls';
import { generate } from 'selfsigned';
import { afterEach, describe, expect, it } from 'vitest';
import { newAccount } from './support/accounts.js';
import { oauth, request } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  parseLogLines,
  startServe,
  waitFor,
} from './support/processes.js';
import { bodyOf, taskListSchema, taskSchema } from './support/wire.js';

/** Old protocol versions are off by default in the client too: this lets a client offer them. */
const LEGACY_CIPHERS = 'DEFAULT:@SECLEVEL=0';

interface Handshake {
  readonly protocol: string | null;
  readonly fingerprint: string;
}

/** One TLS handshake with 127.0.0.1:`port`, trusting only `ca`; resolves with what was agreed. */
function handshake(port: number, options: tls.ConnectionOptions): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ...options }, () => {
      const result = {
        protocol: socket.getProtocol(),
        fingerprint: socket.getPeerX509Certificate()?.fingerprint256 ?? '',
      };
      socket.end();
      resolve(result);
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('TLS handshake timed out')));
    socket.on('error', reject);
  });
}

/** A server of our own that still speaks TLS 1.0 and 1.1, to show the test client can. */
async function legacyServer(cert: string, key: string): Promise<{ port: number; close: () => void }> {
  const server = tls.createServer({ cert, key, minVersion: 'TLSv1', ciphers: LEGACY_CIPHERS }, (socket) =>
    socket.end(),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { port: address.port, close: () => server.close() };
}

/** A key and self-signed certificate for 127.0.0.1, as an operator would bring them. */
async function makeCertificate(commonName: string): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

describe('serve over HTTPS', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterEach(async () => {
    await cleanUpProcesses();
  });

  it('makes a self-signed certificate in the data folder on first start, serves with it, and keeps it', async () => {
    const dataDir = await makeTempDir('tls');
    const certFile = path.join(dataDir, 'tls-cert.pem');
    const keyFile = path.join(dataDir, 'tls-key.pem');
    expect(existsSync(certFile)).toBe(false);

    const server = await startServe({ dataDir });
    expect(server.origin.startsWith('https://')).toBe(true);
    const ca = await readFile(certFile, 'utf8');
    expect(ca).toContain('-----BEGIN CERTIFICATE-----');
    expect(await readFile(keyFile, 'utf8')).toContain('PRIVATE KEY-----');
    expect((await stat(keyFile)).mode & 0o077).toBe(0); // the key is readable by its owner only
    // Said after the listening line, which comes first.
    await waitFor(() => server.stdout().includes('made a self-signed certificate'));
    const log = parseLogLines(server.stdout());
    expect(log[0]?.msg).toBe('task-service listening');
    expect(log.find((line) => line.msg === 'made a self-signed certificate')?.['certificate']).toBe(certFile);

    // A client that trusts exactly that certificate completes a list.
    const token = await newAccount({ dataDir }, 'tls');
    const created = bodyOf(
      await request(server.origin, { path: '/v1/tasks', headers: oauth(token), body: { title: 'over TLS' }, ca }),
      taskSchema,
    );
    const listed = bodyOf(
      await request(server.origin, { path: '/v1/tasks', headers: oauth(token), ca }),
      taskListSchema,
    );
    expect(listed.entries.map((task) => task.id)).toEqual([created.id]);

    // One that trusts only the usual authorities refuses it.
    await expect(request(server.origin, { path: '/healthz' })).rejects.toThrow(/self.signed/i);

    const presented = await handshake(server.port, { ca, maxVersion: 'TLSv1.2' });
    expect(presented.protocol).toBe('TLSv1.2');
    expect(presented.fingerprint).toBe(new X509Certificate(ca).fingerprint256);

    // TLS 1.1 is refused by the server (minVersion TLSv1.2), although this client can speak it.
    const legacy = await legacyServer(ca, await readFile(keyFile, 'utf8'));
    try {
      const control = await handshake(legacy.port, {
        ca,
        minVersion: 'TLSv1.1',
        maxVersion: 'TLSv1.1',
        ciphers: LEGACY_CIPHERS,
      });
      expect(control.protocol).toBe('TLSv1.1');
    } finally {
      legacy.close();
    }
    await expect(
      handshake(server.port, { ca, minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: LEGACY_CIPHERS }),
    ).rejects.toThrow(/protocol version/i);

    // A restart serves the same certificate (clients pin it), and says nothing about making one.
    expect((await server.stop()).code).toBe(0);
    const again = await startServe({ dataDir });
    expect(await readFile(certFile, 'utf8')).toBe(ca);
    expect((await handshake(again.port, { ca })).fingerprint).toBe(presented.fingerprint);
    expect(parseLogLines(again.stdout()).some((line) => line.msg === 'made a self-signed certificate')).toBe(false);
    bodyOf(await request(again.origin, { path: '/v1/tasks', headers: oauth(token), ca }), taskListSchema);
  });

  it('--tls-cert and --tls-key serve the given certificate and make none', async () => {
    const dataDir = await makeTempDir('tls-given');
    const files = await makeTempDir('tls-files');
    const pair = await makeCertificate('task-service e2e');
    const certFile = path.join(files, 'cert.pem');
    const keyFile = path.join(files, 'key.pem');
    await writeFile(certFile, pair.cert);
    await writeFile(keyFile, pair.key, { mode: 0o600 });

    const server = await startServe({ dataDir, args: ['--tls-cert', certFile, '--tls-key', keyFile] });
    expect((await handshake(server.port, { ca: pair.cert })).fingerprint).toBe(
      new X509Certificate(pair.cert).fingerprint256,
    );
    const token = await newAccount({ dataDir }, 'given');
    bodyOf(await request(server.origin, { path: '/v1/tasks', headers: oauth(token), ca: pair.cert }), taskListSchema);
    expect(existsSync(path.join(dataDir, 'tls-cert.pem'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'tls-key.pem'))).toBe(false);
  });

  it('--http serves plain HTTP and makes no certificate', async () => {
    const dataDir = await makeTempDir('plain');
    const server = await startServe({ dataDir, http: true });
    expect(server.origin.startsWith('http://')).toBe(true);
    const health = await request(server.origin, { path: '/healthz' });
    expect(health.status).toBe(200);
    expect(health.text).toBe('{"status":"ok"}');
    expect(existsSync(path.join(dataDir, 'tls-cert.pem'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'tls-key.pem'))).toBe(false);
  });
});
