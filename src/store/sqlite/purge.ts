import type { Micros } from '../../domain/time.js';
import { KIND_STORAGE } from '../kinds/records.js';
import type { SqliteDatabase } from './connection.js';

interface PurgedSummary {
  readonly purged: number;
  readonly max_rev: number;
  readonly max_updated: number;
}

/** Every synced kind keeps tombstones. */
const TOMBSTONE_TABLES = Object.values(KIND_STORAGE).map((storage) => storage.table);

/**
 * Removes old tombstones account by account, remembering how far each account was purged. A
 * tombstone's age is the server's time of its deletion, its `updated` (the stamp of its last
 * change, the deletion or later), never the `deleted` a client sent: a backdated deletion must
 * not expire other devices' sync positions early.
 */
export class Purger {
  readonly #purgeAccount;

  constructor(db: SqliteDatabase) {
    const tables = TOMBSTONE_TABLES.map((table) => ({
      summarize: db.prepare<[accountId: number, deletedBefore: number], PurgedSummary>(
        `SELECT count(*) AS purged, coalesce(max(rev), 0) AS max_rev, coalesce(max(updated), 0) AS max_updated
         FROM ${table} WHERE account_id = ? AND deleted IS NOT NULL AND updated < ?`,
      ),
      remove: db.prepare<[accountId: number, deletedBefore: number]>(
        `DELETE FROM ${table} WHERE account_id = ? AND deleted IS NOT NULL AND updated < ?`,
      ),
    }));
    // max() keeps the marks from going back: an earlier purge may have reached further.
    const raiseMarks = db.prepare<[purgedRev: number, purgedUpdated: number, accountId: number]>(
      `UPDATE accounts SET purged_rev = max(purged_rev, ?), purged_updated = max(purged_updated, ?) WHERE id = ?`,
    );
    // One IMMEDIATE transaction per account: the marks and the deletions commit together, and
    // a sync reader never sees rows gone without the marks that expire its position.
    this.#purgeAccount = db.transaction((accountId: number, deletedBefore: Micros): number => {
      let purged = 0;
      let maxRev = 0;
      let maxUpdated = 0;
      for (const table of tables) {
        const summary = table.summarize.get(accountId, deletedBefore);
        if (summary === undefined || summary.purged === 0) continue;
        table.remove.run(accountId, deletedBefore);
        purged += summary.purged;
        maxRev = Math.max(maxRev, summary.max_rev);
        maxUpdated = Math.max(maxUpdated, summary.max_updated);
      }
      if (purged > 0) raiseMarks.run(maxRev, maxUpdated, accountId);
      return purged;
    });
  }

  /** Purges one account's tombstones deleted before `deletedBefore`; answers how many. */
  purgeAccount(accountId: number, deletedBefore: Micros): number {
    return this.#purgeAccount.immediate(accountId, deletedBefore);
  }
}
