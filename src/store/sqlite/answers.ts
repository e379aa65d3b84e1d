import type { Micros } from '../../domain/time.js';
import type { StoredAnswer } from '../store.js';
import type { SqliteDatabase } from './connection.js';

interface AnswerRow {
  readonly request_hash: string;
  readonly answer: string;
  readonly created: number;
}

/** The answers kept for Idempotency-Keys, on the write connection, prepared once. */
export class AnswerWrites {
  readonly #find;
  readonly #save;
  readonly #forget;

  constructor(db: SqliteDatabase) {
    this.#find = db.prepare<[accountId: number, key: string], AnswerRow>(
      'SELECT request_hash, answer, created FROM idempotency_answers WHERE account_id = ? AND key = ?',
    );
    // Replacing restarts the key's window: an expired answer gives way to the new one.
    this.#save = db.prepare<[accountId: number, key: string, requestHash: string, answer: string, created: number]>(
      `INSERT INTO idempotency_answers (account_id, key, request_hash, answer, created) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id, key) DO UPDATE SET
         request_hash = excluded.request_hash, answer = excluded.answer, created = excluded.created`,
    );
    this.#forget = db.prepare<[accountId: number, createdBefore: number]>(
      'DELETE FROM idempotency_answers WHERE account_id = ? AND created < ?',
    );
  }

  find(accountId: number, key: string): StoredAnswer | undefined {
    const row = this.#find.get(accountId, key);
    return row === undefined ? undefined : { requestHash: row.request_hash, answer: row.answer, created: row.created };
  }

  save(accountId: number, key: string, requestHash: string, answer: string, now: Micros): void {
    this.#save.run(accountId, key, requestHash, answer, now);
  }

  /** Drops one account's answers made before `createdBefore`; answers how many. */
  forget(accountId: number, createdBefore: Micros): number {
    return this.#forget.run(accountId, createdBefore).changes;
  }
}
