import type pg from 'pg';
import { invalid } from '../../domain/errors.js';
import type { DraftsByKind, NamedKind, RecordsByKind, SyncKind, WriteOutcome } from '../../domain/sync.js';
import type { Task } from '../../domain/task.js';
import type { StorageUsage } from '../../domain/storage-quota.js';
import type { Micros } from '../../domain/time.js';
import { numberFromBigint, type BigintText } from './values.js';
import { encodeOutcome } from '../kinds/kept-outcome.js';
import { Stamper, type Stamp } from '../stamp.js';
import type { KeptOutcome, LabelPending, WriteTx } from '../store.js';
import { isUniqueViolation } from './errors.js';
import { readChildren, readKept, readLiveLabel, readRecord, readTasksWithLabel } from './record-reads.js';
import { KIND_TABLES } from './tables.js';

/**
 * The puts and reads of one `Store.write`, on a connection whose transaction holds the account
 * row's lock. Change numbers are counted here and written back to the account row by the caller
 * before COMMIT, so the next writer (who waits for the lock) continues where this one ended.
 */
export class PostgresWriteTx implements WriteTx {
  readonly #stamper: Stamper;
  #finished = false;
  /**
   * The account's usage while it is known without asking: read with the account's lock, and
   * unchanged until the first put (the usage triggers move it). Saves a round trip per request.
   */
  #knownUsage: StorageUsage | null;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly accountId: number,
    start: Stamp,
    startUsage: StorageUsage,
    private readonly now: () => Micros,
  ) {
    this.#stamper = new Stamper(start, now);
    this.#knownUsage = startUsage;
  }

  /** The head to save before COMMIT, or null when nothing was written. */
  get changedHead(): Stamp | null {
    return this.#stamper.changedHead;
  }

  /** Called when the transaction ends: a put after that would escape it. */
  finish(): void {
    this.#finished = true;
  }

  #assertOpen(): void {
    if (this.#finished) throw new Error('the write transaction has ended');
  }

  get<K extends SyncKind>(kind: K, id: string): Promise<RecordsByKind[K] | undefined> {
    this.#assertOpen();
    return readRecord(this.client, this.accountId, kind, id);
  }

  findLive<K extends NamedKind>(kind: K, name: string): Promise<RecordsByKind[K] | undefined> {
    this.#assertOpen();
    return readLiveLabel(this.client, this.accountId, kind, name);
  }

  withLabel(kind: NamedKind, id: string, pending?: LabelPending): Promise<readonly Task[]> {
    this.#assertOpen();
    return readTasksWithLabel(this.client, this.accountId, kind, id, pending);
  }

  async childrenOf(parentIds: readonly string[]): Promise<readonly Task[]> {
    this.#assertOpen();
    return parentIds.length === 0 ? [] : readChildren(this.client, this.accountId, parentIds);
  }

  /**
   * The stamp is taken before the statement is sent, but counts only once it succeeded; puts of
   * one transaction are awaited one after the other by the use cases.
   */
  async put<K extends SyncKind>(kind: K, draft: DraftsByKind[K]): Promise<RecordsByKind[K]> {
    this.#knownUsage = null;
    this.#assertOpen();
    const table = KIND_TABLES[kind];
    const values = table.codec.encodeDraft(draft);
    const stamp = this.#stamper.peek();
    let rows: readonly Readonly<Record<string, unknown>>[];
    try {
      rows = (await this.client.query(table.upsert, [this.accountId, ...values, stamp.updated, stamp.rev])).rows;
    } catch (error) {
      // The service checks name clashes first; the index firing is the last line of defence.
      const index = table.codec.liveNameIndex;
      if (index !== null && isUniqueViolation(error, index)) throw invalid('name', 'taken');
      throw error;
    }
    const [row] = rows;
    if (row === undefined) throw new Error('an upsert returned no row');
    this.#stamper.taken(stamp);
    return table.codec.fromObject(row);
  }

  async usage(): Promise<StorageUsage> {
    this.#assertOpen();
    if (this.#knownUsage !== null) return this.#knownUsage;
    const result = await this.client.query<{ records: BigintText; bytes: BigintText }>(
      'SELECT stored_records AS records, stored_bytes AS bytes FROM accounts WHERE id = $1',
      [this.accountId],
    );
    const row = result.rows[0];
    if (row === undefined) throw new Error(`no account with id ${this.accountId}`);
    return { records: numberFromBigint(row.records), bytes: numberFromBigint(row.bytes) };
  }

  findKept(key: string): Promise<KeptOutcome | undefined> {
    this.#assertOpen();
    return readKept(this.client, this.accountId, key);
  }

  async keep(key: string, requestHash: string, outcome: WriteOutcome): Promise<void> {
    this.#assertOpen();
    await this.client.query(
      `INSERT INTO idempotency_answers (account_id, key, request_hash, outcome, created) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, outcome = EXCLUDED.outcome,
         created = EXCLUDED.created`,
      [this.accountId, key, requestHash, encodeOutcome(outcome), this.now()],
    );
  }
}
