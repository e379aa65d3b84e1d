import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a secret, hex: how every secret of ACCOUNTS.md is stored (they are all 256-bit random). */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** `bytes` random bytes as lowercase hex (client ids and secrets, OAuth tokens, as the original's). */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A random 256-bit value, URL-safe base64 (session ids, codes, refresh tokens). */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares two hex hashes in constant time. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** RFC 7636 S256: BASE64URL(SHA-256(verifier)). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
