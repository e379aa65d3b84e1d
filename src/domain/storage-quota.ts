import { DomainError } from './errors.js';

/** What one account stores: its records (tombstones too) and the UTF-8 bytes of their texts. */
export interface StorageUsage {
  readonly records: number;
  /** Titles, names, notes and the iCalendar properties a task keeps: the texts that may be large. */
  readonly bytes: number;
}

/** The most one account may store (issue #16: one account must not fill the service's disk). */
export interface StorageQuota {
  readonly maxRecords: number;
  readonly maxBytes: number;
}

/**
 * 100,000 records and 256 MiB of text: far beyond a person's tasks (a thousand tasks with the
 * longest notes allowed fit), small enough that one account cannot exhaust the service.
 */
export const DEFAULT_STORAGE_QUOTA: StorageQuota = { maxRecords: 100_000, maxBytes: 256 * 1024 * 1024 };

/**
 * Refuses a write that leaves the account over its quota by growing past it. A write that does
 * not grow what is over (an update, a deletion, a shorter note) is let through, so an account
 * over a lowered quota can still tidy up.
 */
export function checkStorageQuota(before: StorageUsage, after: StorageUsage, quota: StorageQuota): void {
  if (after.records > quota.maxRecords && after.records > before.records) {
    throw new DomainError({ kind: 'storage_full', measure: 'records', max: quota.maxRecords });
  }
  if (after.bytes > quota.maxBytes && after.bytes > before.bytes) {
    throw new DomainError({ kind: 'storage_full', measure: 'bytes', max: quota.maxBytes });
  }
}
