import type { WriteOutcome } from '../../domain/sync.js';
import type { Micros } from '../../domain/time.js';
import { decodeOutcome, encodeOutcome } from '../kinds/kept-outcome.js';
import type { KeptOutcome } from '../store.js';
import type { SqliteDatabase } from './connection.js';

interface KeptRow {
  readonly request_hash: string;
  readonly outcome: string;
  readonly created: number;
}

/** The outcomes kept for retry keys, on the write connection, prepared once. */
export class KeptOutcomes {
  readonly #find;
  readonly #save;
  readonly #forget;

  constructor(db: SqliteDatabase) {
    this.#find = db.prepare<[accountId: number, key: string], KeptRow>(
      'SELECT request_hash, outcome, created FROM idempotency_answers WHERE account_id = ? AND key = ?',
    );
    // Replacing restarts the key's window: an expired outcome gives way to the new one.
    this.#save = db.prepare<[accountId: number, key: string, requestHash: string, outcome: string, created: number]>(
      `INSERT INTO idempotency_answers (account_id, key, request_hash, outcome, created) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id, key) DO UPDATE SET
         request_hash = excluded.request_hash, outcome = excluded.outcome, created = excluded.created`,
    );
    this.#forget = db.prepare<[accountId: number, createdBefore: number]>(
      'DELETE FROM idempotency_answers WHERE account_id = ? AND created < ?',
    );
  }

  find(accountId: number, key: string): KeptOutcome | undefined {
    const row = this.#find.get(accountId, key);
    return row === undefined
      ? undefined
      : { requestHash: row.request_hash, outcome: decodeOutcome(row.outcome), created: row.created };
  }

  save(accountId: number, key: string, requestHash: string, outcome: WriteOutcome, now: Micros): void {
    this.#save.run(accountId, key, requestHash, encodeOutcome(outcome), now);
  }

  /** Drops one account's outcomes kept before `createdBefore`; answers how many. */
  forget(accountId: number, createdBefore: Micros): number {
    return this.#forget.run(accountId, createdBefore).changes;
  }
}
