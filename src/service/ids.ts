import { randomBytes } from 'node:crypto';

/** A server-made record id: 128 random bits, URL-safe base64 (within the id alphabet of the contract). */
export function newRecordId(): string {
  return randomBytes(16).toString('base64url');
}

/** A new access token: 256 random bits, shown once and stored only as its hash. */
export function newTokenSecret(): string {
  return randomBytes(32).toString('base64url');
}
