import type { Account } from '../domain/account.js';
import { DomainError, invalid } from '../domain/errors.js';
import type { LabelInput } from '../domain/label.js';
import { mergeContext, mergeProject, touchesTasks } from '../domain/label-rules.js';
import type { DraftsByKind, NamedKind, RecordsByKind, WriteOutcome } from '../domain/sync.js';
import type { Store, WriteTx } from '../store/store.js';
import { applyEach } from './apply-each.js';
import { writeOnce, type WriteRequest } from './idempotency.js';
import { newRecordId } from './ids.js';
import type { ImportChange } from './tasks.js';
import { sameContext, sameProject } from '../domain/unchanged.js';

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
 * deletion shown on each of the label's tasks as a change of that task, in the same transaction.
 */
export class LabelService {
  constructor(private readonly store: Store) {}

  upsert<K extends NamedKind>(
    account: Account,
    kind: K,
    inputs: readonly LabelInput[],
    request: WriteRequest,
  ): Promise<WriteOutcome<K>> {
    return this.store.write(account.id, (tx) =>
      writeOnce(tx, kind, request.idempotency, async () => ({
        kind,
        zone: account.timezone,
        many: request.many,
        records: await applyEach(inputs, request.many, (input) => upsertOne(tx, kind, input)),
      })),
    );
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
  return applyEach(inputs, true, async (input): Promise<ImportChange> => {
    const existing = input.id === undefined ? undefined : await tx.get(kind, input.id);
    if (existing !== undefined && UNCHANGED[kind](existing, MERGE[kind](existing, input, existing.id))) {
      return 'unchanged';
    }
    await upsertOne(tx, kind, input);
    return existing === undefined ? 'created' : 'updated';
  });
}

async function upsertOne<K extends NamedKind>(tx: WriteTx, kind: K, input: LabelInput): Promise<RecordsByKind[K]> {
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
  if (touchesTasks(existing, saved)) {
    const label = saved.deleted === null ? { id: saved.id, name: saved.name } : null;
    for (const task of await tx.withLabel(kind, saved.id)) {
      await tx.put('task', kind === 'project' ? { ...task, project: label } : { ...task, context: label });
    }
  }
  return saved;
}
