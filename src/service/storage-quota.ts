import { checkStorageQuota, type StorageQuota } from '../domain/storage-quota.js';
import type { WriteTx } from '../store/store.js';

/**
 * Runs a request's writes and refuses them all (the transaction rolls back) when they take the
 * account past its quota. Usage is read twice per request, not per record: two reads of the
 * account row, which the write already holds.
 */
export async function withinQuota<T>(tx: WriteTx, quota: StorageQuota, write: () => Promise<T>): Promise<T> {
  const before = await tx.usage();
  const result = await write();
  checkStorageQuota(before, await tx.usage(), quota);
  return result;
}
