import type { Micros } from '../domain/time.js';

/** How far a backup has come, in database pages. */
export interface BackupProgress {
  readonly totalPages: number;
  readonly copiedPages: number;
}

export interface BackupSummary {
  readonly bytes: number;
  /** How many times a write to the live store made the copy start over. */
  readonly restarts: number;
}

export interface RestoreSummary {
  readonly backupSchemaVersion: number;
  readonly schemaVersion: number;
  readonly accounts: number;
  /**
   * Why the replaced store's change numbers could not be read (it is damaged), or null: they were
   * then moved on by a jump past any in use, so that no `if_rev` it gave matches a restored record.
   */
  readonly replacedUnreadable: string | null;
  /** Where the store that was replaced is kept; null when there was none. */
  readonly keptAs: string | null;
}

/** Why a file cannot be restored: not a task-service store, damaged, or from a newer release. */
export class UnrestorableError extends Error {
  override name = 'UnrestorableError';
}

/**
 * The backup and restore of a store by its files, reached through store/open.ts (`openBackups`):
 * the embedded engine's; PostgreSQL has its own tools (pg_dump, pg_restore) instead.
 */
export interface StoreBackups {
  /** The store's file, as messages name it. */
  readonly where: string;
  /** Whether a store is there. */
  exists(): boolean;
  /** Whether a process (a running serve, another command) has the store open. */
  inUse(): boolean;
  /** An online copy to `destination`, made while the store keeps serving; `destination` must be new. */
  backup(destination: string, onProgress: (progress: BackupProgress) => void): Promise<BackupSummary>;
  /**
   * Replaces the store with `backup`, checked before the store is touched (UnrestorableError), and
   * keeps the replaced store beside it; the store begins a new life (a new epoch), so every sync
   * position handed out before answers E008. `now` marks the lost stretch and names the kept store. The store must not be in use.
   */
  restore(backup: string, now: Micros): RestoreSummary;
}
