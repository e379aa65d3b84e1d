import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface TlsMaterial {
  readonly key: string;
  readonly cert: string;
}

const CERTIFICATE_DAYS = 825;

/**
 * The certificate to serve HTTPS with: the operator's files, or a self-signed one made in the data
 * folder on first start (kept, so clients can pin it), so a first run needs nothing but the command.
 */
export async function loadTls(
  configured: { readonly certFile: string; readonly keyFile: string } | null,
  dataDir: string,
): Promise<{ material: TlsMaterial; made: boolean; certFile: string }> {
  const certFile = configured?.certFile ?? path.join(dataDir, 'tls-cert.pem');
  const keyFile = configured?.keyFile ?? path.join(dataDir, 'tls-key.pem');
  try {
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    return { material: { cert, key }, made: false, certFile };
  } catch (error) {
    // Only a first start without configured files makes a certificate; anything else is a fault.
    const missing = error instanceof Error && 'code' in error && error.code === 'ENOENT';
    if (configured !== null || !missing) throw error;
  }
  const notAfterDate = new Date(Date.now() + CERTIFICATE_DAYS * 86_400_000);
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
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  await mkdir(dataDir, { recursive: true });
  await writeFile(keyFile, pems.private, { mode: 0o600 });
  await writeFile(certFile, pems.cert, { mode: 0o644 });
  return { material: { cert: pems.cert, key: pems.private }, made: true, certFile };
}
