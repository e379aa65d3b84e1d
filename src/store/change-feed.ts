import type { SyncKind } from '../domain/sync.js';

/**
 * What the change feed tells: an account's head moved by a commit that changed records of these
 * kinds; `outbox`, a commit of an account with an active hook, which may have written deliveries
 * to its webhook outbox (only the changes a hook wants are written); or `resync`, when the feed may have missed changes (PostgreSQL: its
 * connection was down) and every listener must look again at what it cares about.
 */
export type ChangeNote =
  | { readonly type: 'changed'; readonly accountId: number; readonly kinds: readonly SyncKind[] }
  | { readonly type: 'outbox'; readonly accountId: number }
  | { readonly type: 'resync' };

export type ChangeListener = (note: ChangeNote) => void;

/**
 * One per process: every commit of this process, and on PostgreSQL of every process on the same
 * database, heard once committed. Waiting requests and the webhook sender read it; nobody polls.
 */
export interface ChangeFeed {
  /** Calls `listener` for each note from now on; the returned function stops that. */
  subscribe(listener: ChangeListener): () => void;
  /**
   * Whether every commit that writes to an outbox is told as `outbox`. When false (PostgreSQL
   * behind a pooler with no URL to listen on) a listener that needs them looks at every `changed`.
   */
  readonly tellsOutbox: boolean;
}
