import type pg from 'pg';
import type { StorageUsage } from '../../domain/storage-quota.js';
import {
  byKind,
  type DraftsByKind,
  type NamedKind,
  type RecordsByKind,
  type SyncKind,
  type WriteOutcome,
} from '../../domain/sync.js';
import type { Task } from '../../domain/task.js';
import type { Micros } from '../../domain/time.js';
import { encodeOutcome } from '../kinds/kept-outcome.js';
import { countedBytes, storedRecord } from '../kinds/records.js';
import { Stamper } from '../stamp.js';
import type { KeptOutcome, LabelPending, WriteTx } from '../store.js';
import { readChildren, readKept, readLiveLabel, readRecord, readTasksWithLabel } from './record-reads.js';
import type { Standing } from './standings.js';
import { KIND_TABLES } from './tables.js';

/** Raised inside a prepared write that needs what only the locked transaction gives. */
export class NeedsLockedWrite extends Error {
  constructor(reason: string) {
    super(`this write needs the account's lock: ${reason}`);
    this.name = 'NeedsLockedWrite';
  }
}

/** What the write knows of a stored record: enough to stamp it again and count its bytes. */
interface KnownRecord {
  readonly created: Micros;
  readonly bytes: number;
}

/** A put of this write: the record it answered, and the row the commit writes. */
interface Put<K extends SyncKind> {
  readonly record: RecordsByKind[K];
  readonly row: Readonly<Record<string, unknown>>;
}

/** A retry key's outcome to keep, and the kept one it replaces (its `created`), if any. */
interface Keep {
  readonly key: string;
  readonly seen: Micros | null;
  readonly requestHash: string;
  readonly outcome: string;
  readonly created: Micros;
}

/** Everything the commit function needs, in the order of its parameters. */
export interface PreparedWrite {
  readonly from: Standing;
  /** The head and usage after the write; null when it wrote no record. */
  readonly to: { readonly rev: number; readonly lastUpdated: Micros; readonly usage: StorageUsage } | null;
  readonly rows: { readonly [K in SyncKind]: readonly Readonly<Record<string, unknown>>[] };
  readonly keep: Keep | null;
  /** How many reads the write made: its answer rests on them even when it wrote nothing. */
  readonly reads: number;
}

/**
 * One `Store.write` prepared without a transaction (issue #15): reads go to the pool, each seeing
 * the last commit; puts are stamped from the account's standing as last seen and kept here, with
 * the records they answer made from the drafts. Nothing is written until the commit function runs
 * it all in one statement, and only if the account still stands where this began. Since every
 * change of an account raises its `rev`, an unchanged `rev` at the commit means that every read
 * made here is still what the locked transaction would have read.
 *
 * The usage after each put is predicted from the record's counted texts; the commit function
 * checks the prediction against what the usage triggers counted. A put of a record this write
 * never read is taken to be new: if it was not, the count of records differs and the write is
 * redone under the lock.
 */
export class SpeculativeWriteTx implements WriteTx {
  readonly #stamper: Stamper;
  #finished = false;
  #reads = 0;
  #usage: StorageUsage;
  readonly #known = new Map<string, KnownRecord | null>();
  /**
   * The records put so far, as stored (the reads of this write see them, as in a transaction),
   * each with its row as the commit function takes it.
   */
  readonly #puts = byKind<{ readonly [K in SyncKind]: Map<string, Put<K>> }>(
    <K extends SyncKind>(_kind: K) => new Map<string, Put<K>>(),
  );
  /** The kept outcomes read, by key: `created`, or null when there was none. */
  readonly #keptSeen = new Map<string, Micros | null>();
  #keep: Keep | null = null;
  #keptOutcome: KeptOutcome | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly accountId: number,
    private readonly from: Standing,
    private readonly now: () => Micros,
  ) {
    this.#stamper = new Stamper({ rev: from.rev, updated: from.lastUpdated }, now);
    this.#usage = from.usage;
  }

  /** Called when the work is over: a put after that would not be committed. */
  finish(): void {
    this.#finished = true;
  }

  #assertOpen(): void {
    if (this.#finished) throw new Error('the write transaction has ended');
  }

  /** Notes a stored record read; one this write has put since is known as it put it. */
  #learn<K extends SyncKind>(kind: K, record: RecordsByKind[K]): void {
    if (this.#puts[kind].has(record.id)) return;
    this.#known.set(keyOf(kind, record.id), { created: record.created, bytes: countedBytes(kind, record) });
  }

  async get<K extends SyncKind>(kind: K, id: string): Promise<RecordsByKind[K] | undefined> {
    this.#assertOpen();
    const pending = this.#puts[kind].get(id);
    if (pending !== undefined) return pending.record;
    this.#reads += 1;
    const record = await readRecord(this.pool, this.accountId, kind, id);
    if (record === undefined) this.#known.set(keyOf(kind, id), null);
    else this.#learn(kind, record);
    return record;
  }

  async findLive<K extends NamedKind>(kind: K, name: string): Promise<RecordsByKind[K] | undefined> {
    this.#assertOpen();
    for (const { record } of this.#puts[kind].values()) {
      if (record.name === name && record.deleted === null) return record;
    }
    this.#reads += 1;
    const record = await readLiveLabel(this.pool, this.accountId, kind, name);
    if (record === undefined) return undefined;
    this.#learn(kind, record);
    // Renamed or deleted by this write since: no longer the live one of that name.
    return this.#puts[kind].has(record.id) ? undefined : record;
  }

  /** With `pending`, read whole and narrowed here: this write's own puts may change what shows the label. */
  async withLabel(kind: NamedKind, id: string, pending?: LabelPending): Promise<readonly Task[]> {
    this.#assertOpen();
    this.#reads += 1;
    const stored = await readTasksWithLabel(this.pool, this.accountId, kind, id);
    for (const task of stored) this.#learn('task', task);
    const puts = this.#puts.task;
    const labelOf = (task: Task) => (kind === 'project' ? task.project : task.context);
    const carries = (task: Task): boolean => task.deleted === null && labelOf(task)?.id === id;
    const put = [...puts.values()].map(({ record }) => record).filter(carries);
    const all = [...stored.filter((task) => !puts.has(task.id)), ...put].sort((a, b) => a.rev - b.rev);
    if (pending === undefined) return all;
    const shown = pending.shown;
    return all.filter((task) => shown === null || labelOf(task)?.name !== shown.name).slice(0, pending.limit);
  }

  async childrenOf(parentIds: readonly string[]): Promise<readonly Task[]> {
    this.#assertOpen();
    if (parentIds.length === 0) return [];
    this.#reads += 1;
    const stored = await readChildren(this.pool, this.accountId, parentIds);
    for (const task of stored) this.#learn('task', task);
    const parents = new Set(parentIds);
    const pending = this.#puts.task;
    const isChild = (task: Task): boolean =>
      task.deleted === null && task.parentId !== null && parents.has(task.parentId);
    const put = [...pending.values()].map(({ record }) => record).filter(isChild);
    return [...stored.filter((task) => !pending.has(task.id)), ...put].sort((a, b) => a.rev - b.rev);
  }

  async put<K extends SyncKind>(kind: K, draft: DraftsByKind[K]): Promise<RecordsByKind[K]> {
    this.#assertOpen();
    const table = KIND_TABLES[kind];
    // Encoding refuses what the column cannot hold (a U+0000 in a text) before anything counts.
    const values = table.codec.encodeDraft(draft);
    const stamp = this.#stamper.peek();
    const key = keyOf(kind, draft.id);
    const before = this.#known.get(key) ?? null;
    const created = before?.created ?? stamp.updated;
    const bytes = countedBytes(kind, draft);
    const row: Record<string, unknown> = { account_id: this.accountId };
    table.codec.draftColumns.forEach((name, index) => {
      row[name] = values[index];
    });
    row['created'] = created;
    row['updated'] = stamp.updated;
    row['rev'] = stamp.rev;
    this.#usage = {
      records: this.#usage.records + (before === null ? 1 : 0),
      bytes: this.#usage.bytes + bytes - (before?.bytes ?? 0),
    };
    this.#known.set(key, { created, bytes });
    this.#stamper.taken(stamp);
    const record = storedRecord(kind, draft, { created, updated: stamp.updated, rev: stamp.rev });
    // A record put twice is written once, as it ended: its first change number goes unused, as
    // when the locked transaction overwrites its own row.
    this.#puts[kind].delete(draft.id);
    this.#puts[kind].set(draft.id, { record, row });
    return record;
  }

  async usage(): Promise<StorageUsage> {
    this.#assertOpen();
    return this.#usage;
  }

  async findKept(key: string): Promise<KeptOutcome | undefined> {
    this.#assertOpen();
    if (this.#keep?.key === key && this.#keptOutcome !== null) return this.#keptOutcome;
    this.#reads += 1;
    const kept = await readKept(this.pool, this.accountId, key);
    this.#keptSeen.set(key, kept?.created ?? null);
    return kept;
  }

  async keep(key: string, requestHash: string, outcome: WriteOutcome): Promise<void> {
    this.#assertOpen();
    const seen = this.#keptSeen.get(key);
    // The commit replaces only the outcome this write saw; unseen, it cannot say which.
    if (seen === undefined || this.#keep !== null) throw new NeedsLockedWrite('a retry key kept unseen');
    const created = this.now();
    this.#keep = { key, seen, requestHash, outcome: encodeOutcome(outcome), created };
    this.#keptOutcome = { requestHash, outcome, created };
  }

  /** The write as the commit function takes it. */
  prepared(): PreparedWrite {
    const head = this.#stamper.changedHead;
    return {
      from: this.from,
      to: head === null ? null : { rev: head.rev, lastUpdated: head.updated, usage: this.#usage },
      rows: byKind<PreparedWrite['rows']>(<K extends SyncKind>(kind: K) =>
        [...this.#puts[kind].values()].map(({ row }) => row),
      ),
      keep: this.#keep,
      reads: this.#reads,
    };
  }
}

function keyOf(kind: SyncKind, id: string): string {
  return `${kind}\u0000${id}`;
}
