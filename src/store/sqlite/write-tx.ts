import type { StorageUsage } from '../../domain/storage-quota.js';
import type { Micros } from '../../domain/time.js';
import type { DraftsByKind, NamedKind, RecordsByKind, SyncKind, WriteOutcome } from '../../domain/sync.js';
import type { Task } from '../../domain/task.js';
import { Stamper, type Stamp } from '../stamp.js';
import type { KeptOutcome, LabelPending, WriteTx } from '../store.js';
import type { KeptOutcomes } from './kept-outcomes.js';
import type { RecordWrites } from './record-writes.js';

/**
 * One write transaction of one account on the write connection. It reads the account's change
 * number and last stamp once, at the start, and counts on from there; the store writes the final
 * values back to the account row just before COMMIT.
 */
export class SqliteWriteTx implements WriteTx {
  #open = true;
  readonly #stamper: Stamper;

  constructor(
    private readonly records: RecordWrites,
    private readonly kept: KeptOutcomes,
    private readonly readUsage: (accountId: number) => StorageUsage,
    private readonly accountId: number,
    head: Stamp,
    private readonly now: () => Micros,
  ) {
    this.#stamper = new Stamper(head, now);
  }

  async get<K extends SyncKind>(kind: K, id: string): Promise<RecordsByKind[K] | undefined> {
    this.#assertOpen();
    return this.records.kinds[kind].get.get(this.accountId, id);
  }

  async put<K extends SyncKind>(kind: K, draft: DraftsByKind[K]): Promise<RecordsByKind[K]> {
    this.#assertOpen();
    const stamp = this.#stamper.peek();
    const record = this.records.kinds[kind].put(this.accountId, draft, stamp);
    this.#stamper.taken(stamp);
    return record;
  }

  async findLive<K extends NamedKind>(kind: K, name: string): Promise<RecordsByKind[K] | undefined> {
    this.#assertOpen();
    return this.records.labels.findLive(kind, this.accountId, name);
  }

  async withLabel(kind: NamedKind, id: string, pending?: LabelPending): Promise<readonly Task[]> {
    this.#assertOpen();
    return this.records.labels.withLabel(kind, this.accountId, id, pending);
  }

  async childrenOf(parentIds: readonly string[]): Promise<readonly Task[]> {
    this.#assertOpen();
    return parentIds.length === 0 ? [] : this.records.labels.childrenOf(this.accountId, parentIds);
  }

  async usage(): Promise<StorageUsage> {
    this.#assertOpen();
    return this.readUsage(this.accountId);
  }

  async findKept(key: string): Promise<KeptOutcome | undefined> {
    this.#assertOpen();
    return this.kept.find(this.accountId, key);
  }

  /** Not a change of the account's data: takes no rev. */
  async keep(key: string, requestHash: string, outcome: WriteOutcome): Promise<void> {
    this.#assertOpen();
    this.kept.save(this.accountId, key, requestHash, outcome, this.now());
  }

  /**
   * Ends the use of this object (a put after the transaction ended would land outside it) and
   * answers the account's new head, or null when nothing was written.
   */
  end(): Stamp | null {
    this.#open = false;
    return this.#stamper.changedHead;
  }

  #assertOpen(): void {
    if (!this.#open) throw new Error('the write transaction has ended');
  }
}
