/** A delivery older or newer than this (by its webhook-timestamp) is refused: a replay. */
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export interface VerifyOptions {
  readonly toleranceSeconds?: number;
  /** The time to check the timestamp against, in seconds; default now. */
  readonly nowSeconds?: number;
}

type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return typeof value === 'string' ? value : value?.[0];
}

function bytesOfBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/**
 * Whether a webhook delivery came from the service: its `webhook-signature` (Standard Webhooks,
 * `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed by the hook's `whsec_` secret) matches
 * the body exactly as received, and its `webhook-timestamp` is within 5 minutes. Pass the raw
 * body text, not JSON parsed and written again. Web Crypto only: browsers, Node.js, Deno, workers.
 */
export async function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  body: string,
  options: VerifyOptions = {},
): Promise<boolean> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined || !/^\d+$/.test(timestamp)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const keyBytes = bytesOfBase64(secret.replace(/^whsec_/, ''));
  if (keyBytes === undefined) return false;
  const key = await globalThis.crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || value === undefined) continue;
    const given = bytesOfBase64(value);
    // subtle.verify compares in constant time.
    if (given !== undefined && (await globalThis.crypto.subtle.verify('HMAC', key, given, signed))) return true;
  }
  return false;
}
