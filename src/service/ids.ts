import { randomBytes, randomFillSync } from 'node:crypto';

const ID_BYTES = 16;
/** Random bytes drawn from the system at once and handed out in slices: one draw per 256 ids. */
const POOL_BYTES = ID_BYTES * 256;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

/** A server-made record id: 128 random bits, URL-safe base64 (within the id alphabet of the contract). */
export function newRecordId(): string {
  if (poolOffset === POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const id = pool.toString('base64url', poolOffset, poolOffset + ID_BYTES);
  poolOffset += ID_BYTES;
  return id;
}

/**
 * A new access token: 256 random bits, shown once and stored only as its hash. It never starts
 * with "-", so that no command line reads it as an option (`token revoke <token>`): a draw that
 * would is made again, which leaves 255.9 bits.
 */
export function newTokenSecret(): string {
  for (;;) {
    const token = randomBytes(32).toString('base64url');
    if (!token.startsWith('-')) return token;
  }
}
