import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { accountNamedBy, accountPrefix, type SecretKey } from '../domain/secret-key.js';

/**
 * SHA-256 of a secret, hex: how every secret of ACCOUNTS.md is stored (they all hold at least 192
 * random bits, so a plain hash cannot be turned back).
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** How the store finds a presented secret: its hash, under the account it names. */
export function secretKeyOf(secret: string): SecretKey {
  return { hash: hashSecret(secret), accountId: accountNamedBy(secret) };
}

/** `bytes` random bytes as lowercase hex (client ids and secrets, OAuth tokens, as the original's). */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * A secret of the account: its account prefix (16 hex digits), then 256 random bits in URL-safe
 * base64 (session ids, codes, the tokens people make). The prefix is a hex digit, so the secret
 * never starts with "-", which a command line would read as an option (`token revoke <token>`).
 */
export function routedSecret(accountId: number): string {
  return accountPrefix(accountId) + randomBytes(32).toString('base64url');
}

/**
 * A secret of the account in the form the original clients parse, 64 lowercase hex (OAuth access
 * and refresh tokens): its account prefix, then 192 random bits.
 */
export function routedHexSecret(accountId: number): string {
  const prefix = accountPrefix(accountId);
  return prefix + randomBytes(32 - prefix.length / 2).toString('hex');
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
