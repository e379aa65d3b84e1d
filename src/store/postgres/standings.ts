import type { StorageUsage } from '../../domain/storage-quota.js';
import type { Micros } from '../../domain/time.js';
import { numberFromBigint, type BigintText } from './values.js';

/** Where an account stood when last seen: what a write prepared without the lock counts on from. */
export interface Standing {
  readonly rev: number;
  readonly lastUpdated: Micros;
  readonly purgedRev: number;
  readonly usage: StorageUsage;
}

/** The accounts row's columns a standing is read from, as pg hands them back. */
export interface StandingRow {
  readonly rev: BigintText;
  readonly last_updated: BigintText;
  readonly purged_rev: BigintText;
  readonly stored_records: BigintText;
  readonly stored_bytes: BigintText;
}

export const STANDING_COLUMNS = ['rev', 'last_updated', 'purged_rev', 'stored_records', 'stored_bytes'] as const;

export function standingFromRow(row: StandingRow): Standing {
  return {
    rev: numberFromBigint(row.rev),
    lastUpdated: numberFromBigint(row.last_updated),
    purgedRev: numberFromBigint(row.purged_rev),
    usage: { records: numberFromBigint(row.stored_records), bytes: numberFromBigint(row.stored_bytes) },
  };
}

/** Enough for every account that writes at once; a forgotten one costs one read of its row. */
const MAX_REMEMBERED = 10_000;

/**
 * The standings this process saw last, by account: from the token check of each request (read in
 * the same statement) and from its own commits. Only a guess: a write prepared from a stale one is
 * refused by the commit (`moved`) and prepared again, so nothing here needs to be fresh.
 */
export class Standings {
  readonly #byAccount = new Map<number, Standing>();

  get(accountId: number): Standing | undefined {
    return this.#byAccount.get(accountId);
  }

  /** Keeps the newer of the two: a token check answered late must not undo a commit seen since. */
  note(accountId: number, standing: Standing): void {
    const known = this.#byAccount.get(accountId);
    if (known !== undefined && known.rev > standing.rev) return;
    // Re-inserted so that the map's order is the order of last use, oldest first.
    this.#byAccount.delete(accountId);
    this.#byAccount.set(accountId, standing);
    if (this.#byAccount.size > MAX_REMEMBERED) {
      const [oldest] = this.#byAccount.keys();
      if (oldest !== undefined) this.#byAccount.delete(oldest);
    }
  }

  forget(accountId: number): void {
    this.#byAccount.delete(accountId);
  }
}
