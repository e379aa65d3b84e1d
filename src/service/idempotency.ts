import { DomainError } from '../domain/errors.js';
import type { SyncKind, WriteOutcome } from '../domain/sync.js';
import { MICROS_PER_DAY, type Micros } from '../domain/time.js';
import type { WriteTx } from '../store/store.js';

/** A write's retry key and a digest of what it asked, so a different request is told apart. */
export interface Idempotency {
  readonly key: string;
  readonly requestHash: string;
}

/** How a write was asked for: one record or several, and the retry key if the client sent one. */
export interface WriteRequest {
  readonly many: boolean;
  readonly idempotency: Idempotency | undefined;
}

/** How long a key's first outcome is replayed. */
export const IDEMPOTENCY_WINDOW_MICROS = MICROS_PER_DAY;

function isOutcomeOf<K extends SyncKind>(outcome: WriteOutcome, kind: K): outcome is WriteOutcome<K> {
  return outcome.kind === kind;
}

/**
 * Writes once per key: a repeat of the same request within the window gets the kept outcome and
 * changes nothing; the same key with another request is refused. The outcome is kept in the same
 * transaction as the writes, so an answered write and its replay cannot part.
 */
export async function writeOnce<K extends SyncKind>(
  tx: WriteTx,
  kind: K,
  idempotency: Idempotency | undefined,
  now: Micros,
  write: () => Promise<WriteOutcome<K>>,
): Promise<WriteOutcome<K>> {
  if (idempotency === undefined) return write();
  const kept = await tx.findKept(idempotency.key);
  const fresh = kept !== undefined && kept.created > now - IDEMPOTENCY_WINDOW_MICROS;
  if (fresh) {
    if (kept.requestHash !== idempotency.requestHash || !isOutcomeOf(kept.outcome, kind)) {
      throw new DomainError({ kind: 'key_reused' });
    }
    return kept.outcome;
  }
  const outcome = await write();
  await tx.keep(idempotency.key, idempotency.requestHash, outcome);
  return outcome;
}
