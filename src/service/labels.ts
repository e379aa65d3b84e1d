import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Account } from '../domain/account.js';
import { DomainError, invalid } from '../domain/errors.js';
import type { LabelInput } from '../domain/label.js';
import { mergeContext, mergeProject, touchesTasks } from '../domain/label-rules.js';
import type { DraftsByKind, NamedKind, RecordsByKind, WriteOutcome } from '../domain/sync.js';
import type { Store, WriteTx } from '../store/store.js';
import { applyEach } from './apply-each.js';
import { withinQuota } from './storage-quota.js';
import type { StorageQuota } from '../domain/storage-quota.js';
import type { Clock } from '../domain/time.js';
import { writeOnce, type WriteRequest } from './idempotency.js';
import { newRecordId } from './ids.js';
import type { ImportChange } from './tasks.js';
import { sameContext, sameProject } from '../domain/unchanged.js';
import { LABEL_COMMIT, showingLabel, writeShowingLabelsAhead, type LabelBound } from './labels-ahead.js';

/** How a client's change applies to each named kind. */
const MERGE: {
  readonly [K in NamedKind]: (
    existing: RecordsByKind[K] | undefined,
    input: LabelInput,
    newId: string,
  ) => DraftsByKind[K];
} = {
  project: mergeProject,
  context: mergeContext,
};

/**
 * Projects and contexts: create or update, names unique among the live ones, and a rename or
 * deletion shown on each of the label's tasks as a change of that task, in the same transaction,
 * once per request.
 */
export class LabelService {
  constructor(
    private readonly store: Store,
    private readonly quota: StorageQuota,
    private readonly now: Clock,
  ) {}

  /**
   * Where one account's commit holds every other (SQLite), a rename or deletion to be shown on
   * more than LABEL_COMMIT tasks is shown on them ahead (labels-ahead.ts): other accounts are not
   * held meanwhile.
   */
  upsert<K extends NamedKind>(
    account: Account,
    kind: K,
    inputs: readonly LabelInput[],
    request: WriteRequest,
  ): Promise<WriteOutcome<K>> {
    return writeShowingLabelsAhead(this.store, account.id, (tx, bound) =>
      writeOnce(tx, kind, request.idempotency, this.now(), () =>
        withinQuota(tx, this.quota, async () => ({
          kind,
          zone: account.timezone,
          many: request.many,
          records: await writeLabels(tx, kind, inputs, request.many, bound),
        })),
      ),
    );
  }
}

/**
 * Creates or changes labels by the rules of `upsert`, in the caller's transaction (CalDAV's too),
 * each rename or deletion shown on the label's tasks once.
 */
export async function writeLabels<K extends NamedKind>(
  tx: WriteTx,
  kind: K,
  inputs: readonly LabelInput[],
  many: boolean,
  bound: LabelBound = 'unbounded',
): Promise<RecordsByKind[K][]> {
  const touched = new TouchedLabels<K>();
  const records = await applyEach(inputs, many, (input) => upsertOne(tx, kind, input, touched));
  await showOnTasks(tx, kind, touched, bound);
  return records;
}

interface LabelState {
  readonly id: string;
  readonly name: string;
  readonly deleted: number | null;
}

/**
 * The labels a request changed: each one's state before the request and after its last change.
 * Tasks are rewritten once per label, from the first state to the last, however many times the
 * request renamed it: one array of 1000 renames of a label on 5,000 tasks costs one rename.
 */
class TouchedLabels<K extends NamedKind> {
  readonly #first = new Map<string, LabelState | undefined>();
  readonly #last = new Map<string, RecordsByKind[K]>();

  saw(before: LabelState | undefined, after: RecordsByKind[K]): void {
    if (!this.#first.has(after.id)) this.#first.set(after.id, before);
    this.#last.set(after.id, after);
  }

  *changed(): Generator<RecordsByKind[K]> {
    for (const [id, last] of this.#last) {
      if (touchesTasks(this.#first.get(id), last)) yield last;
    }
  }
}

/**
 * Tasks rewritten between two turns of the event loop. On SQLite a put does not wait for
 * anything, so a label on many thousand tasks would otherwise hold the process for the whole
 * rewrite, and other accounts' reads with it.
 */
const TASKS_PER_TURN = 500;

/**
 * A rename or deletion shown on each of the label's tasks as a change of that task (one that shows
 * it already, written ahead, is left as it is). Bounded, a label to be shown on more than
 * LABEL_COMMIT tasks is noted in `bound.large` and none of its tasks is written.
 */
async function showOnTasks<K extends NamedKind>(
  tx: WriteTx,
  kind: K,
  touched: TouchedLabels<K>,
  bound: LabelBound,
): Promise<void> {
  let rewritten = 0;
  for (const saved of touched.changed()) {
    const label = saved.deleted === null ? { id: saved.id, name: saved.name } : null;
    const pending = await tx.withLabel(kind, saved.id, {
      shown: label,
      ...(bound === 'unbounded' ? {} : { limit: LABEL_COMMIT + 1 }),
    });
    if (bound !== 'unbounded' && pending.length > LABEL_COMMIT) {
      bound.large.push({ kind, id: saved.id, label });
      continue;
    }
    for (const task of pending) {
      await tx.put('task', showingLabel(task, kind, label));
      rewritten += 1;
      if (rewritten % TASKS_PER_TURN === 0) await nextTurn();
    }
  }
}

/** Whether writing `draft` over `stored` would change nothing, per kind. */
const UNCHANGED: {
  readonly [K in NamedKind]: (stored: RecordsByKind[K], draft: DraftsByKind[K]) => boolean;
} = {
  project: sameProject,
  context: sameContext,
};

/**
 * An import's projects or contexts, in the caller's transaction, by the same rules as `upsert`;
 * one that would not change is not written.
 */
export async function importLabels<K extends NamedKind>(
  tx: WriteTx,
  kind: K,
  inputs: readonly LabelInput[],
): Promise<ImportChange[]> {
  const touched = new TouchedLabels<K>();
  const changes = await applyEach(inputs, true, async (input): Promise<ImportChange> => {
    const existing = input.id === undefined ? undefined : await tx.get(kind, input.id);
    if (existing !== undefined && UNCHANGED[kind](existing, MERGE[kind](existing, input, existing.id))) {
      return 'unchanged';
    }
    await upsertOne(tx, kind, input, touched);
    return existing === undefined ? 'created' : 'updated';
  });
  await showOnTasks(tx, kind, touched, 'unbounded');
  return changes;
}

async function upsertOne<K extends NamedKind>(
  tx: WriteTx,
  kind: K,
  input: LabelInput,
  touched: TouchedLabels<K>,
): Promise<RecordsByKind[K]> {
  const existing = input.id === undefined ? undefined : await tx.get(kind, input.id);
  if (input.ifRev !== undefined && existing?.rev !== input.ifRev) {
    throw new DomainError({ kind: 'conflict', record: kind, id: input.id ?? '' });
  }
  const name = input.name ?? existing?.name;
  const willBeLive = (input.deleted === undefined ? (existing?.deleted ?? null) : input.deleted) === null;
  if (name !== undefined && willBeLive) {
    const holder = await tx.findLive(kind, name);
    if (holder !== undefined && holder.id !== existing?.id) throw invalid('name', 'taken');
  }
  const merge = MERGE[kind];
  const saved = await tx.put(kind, merge(existing, input, newRecordId()));
  touched.saw(existing, saved);
  return saved;
}

/**
 * The projects or contexts an import's tasks name (ICS, Todoist: by name, not id), each found
 * live or made, as a task naming it would make it: made ones count as created, found ones as
 * unchanged, so that the import's report counts them.
 */
export async function importLabelsByName(
  tx: WriteTx,
  kind: NamedKind,
  names: readonly string[],
): Promise<ImportChange[]> {
  return applyEach(names, true, async (name): Promise<ImportChange> => {
    if ((await tx.findLive(kind, name)) !== undefined) return 'unchanged';
    await (kind === 'project'
      ? tx.put('project', { id: newRecordId(), name, notes: '', archived: null, deleted: null, color: null })
      : tx.put('context', { id: newRecordId(), name, deleted: null }));
    return 'created';
  });
}
