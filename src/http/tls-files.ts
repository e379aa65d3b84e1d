import { createSecureContext } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { StartupError } from '../config/startup-error.js';

export interface TlsMaterial {
  readonly key: string;
  readonly cert: string;
}

export interface LoadedTls {
  readonly material: TlsMaterial;
  /** Whether this start made the self-signed certificate. */
  readonly made: boolean;
  readonly certFile: string;
  /** Names and addresses clients reach the server by that the certificate does not name. */
  readonly unnamed: readonly string[];
}

const CERTIFICATE_DAYS = 825;

/** Whether `host` means every interface rather than one address. */
function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/**
 * The addresses a server listening on `host` is reached at: the address itself, or for a
 * wildcard every address of the machine's interfaces (IPv4 only for 0.0.0.0).
 */
export function addressesServed(host: string): string[] {
  if (!isWildcardHost(host)) return [host];
  const ipv4Only = host === '0.0.0.0';
  const addresses = Object.values(os.networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !ipv4Only || entry.family === 'IPv4')
    .filter((entry) => !entry.address.startsWith('fe80:')) // link-local: only with a zone, never in a URL
    .map((entry) => entry.address);
  return [...new Set(addresses)];
}

/** The names a self-signed certificate gets: localhost, this machine's name, and the served addresses. */
function namesFor(host: string): { dns: string[]; ips: string[] } {
  const candidates = ['localhost', os.hostname(), '127.0.0.1', '::1', ...addressesServed(host)];
  const dns = new Set<string>();
  const ips = new Set<string>();
  for (const name of candidates) {
    if (name === '') continue;
    if (isIP(name) === 0) dns.add(name.toLowerCase());
    else ips.add(name);
  }
  return { dns: [...dns], ips: [...ips] };
}

/** The wanted names that the certificate does not cover. */
function unnamedBy(cert: string, host: string): string[] {
  const certificate = new X509Certificate(cert);
  const { dns, ips } = namesFor(host);
  return [
    ...dns.filter((name) => certificate.checkHost(name) === undefined),
    ...ips.filter((ip) => certificate.checkIP(ip) === undefined),
  ];
}

function errorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code: unknown = Reflect.get(error, 'code');
  return typeof code === 'string' ? code : undefined;
}

async function readPem(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason =
      errorCode(error) === 'ENOENT'
        ? 'no such file'
        : errorCode(error) === 'EACCES'
          ? 'not readable by this user'
          : 'cannot be read';
    throw new StartupError(`the TLS ${what} file ${file}: ${reason} (see --tls-cert and --tls-key)`, { cause: error });
  }
}

/** Refuses a key that does not belong to the certificate, or files that are not PEM, naming them. */
function checkPair(material: TlsMaterial, certFile: string, keyFile: string): void {
  try {
    createSecureContext({ cert: material.cert, key: material.key });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = /key values mismatch/i.test(message)
      ? 'the key does not belong to the certificate'
      : 'they are not a PEM certificate and its PEM private key';
    throw new StartupError(`the TLS files ${certFile} and ${keyFile}: ${reason}`, { cause: error });
  }
}

/**
 * The certificate to serve HTTPS with: the operator's files, or a self-signed one made in the data
 * folder on first start (kept, so clients can pin it), so a first run needs nothing but the command.
 * The self-signed one names localhost, this machine's host name, and the addresses of `host`.
 */
export async function loadTls(
  configured: { readonly certFile: string; readonly keyFile: string } | null,
  dataDir: string,
  host: string,
): Promise<LoadedTls> {
  if (configured !== null) {
    // One after the other, so that when both are missing the message is always about the first.
    const cert = await readPem(configured.certFile, 'certificate');
    const key = await readPem(configured.keyFile, 'key');
    checkPair({ cert, key }, configured.certFile, configured.keyFile);
    return { material: { cert, key }, made: false, certFile: configured.certFile, unnamed: [] };
  }
  const certFile = path.join(dataDir, 'tls-cert.pem');
  const keyFile = path.join(dataDir, 'tls-key.pem');
  try {
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    checkPair({ cert, key }, certFile, keyFile);
    return { material: { cert, key }, made: false, certFile, unnamed: unnamedBy(cert, host) };
  } catch (error) {
    // Only a first start (no files yet) makes a certificate; anything else is a fault.
    if (errorCode(error) !== 'ENOENT') throw error;
  }
  const notAfterDate = new Date(Date.now() + CERTIFICATE_DAYS * 86_400_000);
  const { dns, ips } = namesFor(host);
  // Loaded only on the first start that makes a certificate.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...dns.map((value) => ({ type: 2 as const, value })),
          ...ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  await mkdir(dataDir, { recursive: true });
  await writeFile(keyFile, pems.private, { mode: 0o600 });
  await writeFile(certFile, pems.cert, { mode: 0o644 });
  return { material: { cert: pems.cert, key: pems.private }, made: true, certFile, unnamed: [] };
}
