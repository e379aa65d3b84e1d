import { randomFillSync } from 'node:crypto';

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
