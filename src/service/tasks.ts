import type { Account } from '../domain/account.js';
import { DomainError, invalid } from '../domain/errors.js';
import type { NamedKind, WriteOutcome } from '../domain/sync.js';
import type { Label, LabelRef, Task, TaskDraft, TaskInput } from '../domain/task.js';
import { sameTask } from '../domain/unchanged.js';
import { mergeTask, type MergeContext } from '../domain/task-rules.js';
import type { Store, WriteTx } from '../store/store.js';
import { applyEach } from './apply-each.js';
import { withinQuota } from './storage-quota.js';
import type { StorageQuota } from '../domain/storage-quota.js';
import type { Clock, Micros } from '../domain/time.js';
import { writeOnce, type WriteRequest } from './idempotency.js';
import { newRecordId } from './ids.js';
import { carryToSubtree, LargeSubtrees, placeInTree, type LargeSubtree, type SubtreeBound } from './subtasks.js';
import { writeSubtreeAhead } from './subtree-ahead.js';

export class TaskService {
  constructor(
    private readonly store: Store,
    private readonly quota: StorageQuota,
    private readonly now: Clock,
  ) {}

  /**
   * Creates or updates each task, all in one transaction: every change gets its own `rev`, and one
   * refused task refuses them all. In a request of several the error names the index. Where one
   * account's commit holds every other (SQLite), a change carried to more than SUBTREE_COMMIT tasks
   * below is written ahead in commits of that many, and the request runs again (subtree-ahead.ts):
   * other accounts are not held meanwhile.
   */
  async upsert(account: Account, inputs: readonly TaskInput[], request: WriteRequest): Promise<WriteOutcome<'task'>> {
    const zone = account.timezone;
    // Each large subtree of the request once, and once more should a concurrent change have
    // made it differ from what was written ahead.
    return writeWithSubtreesAhead(this.store, account, this.now, 2 * inputs.length, (tx, bound) =>
      writeOnce(tx, 'task', request.idempotency, this.now(), () =>
        withinQuota(tx, this.quota, async () => ({
          kind: 'task' as const,
          zone,
          many: request.many,
          records: await applyEach(inputs, request.many, (input) => upsertOne(tx, zone, input, this.now(), bound)),
        })),
      ),
    );
  }
}

/**
 * Runs `work` in one write of the account, the changes it carries to subtrees bounded where one
 * account's commit holds every other (SQLite): once every rule of `work` passed, a change carried
 * to more than SUBTREE_COMMIT tasks below is written ahead in commits of that many
 * (subtree-ahead.ts), and `work` runs again, writing the task itself last; other accounts are not
 * held meanwhile. Where a commit holds its own account only (PostgreSQL), a subtree of any size
 * is one commit. After `retries` rounds of writing ahead, what is still large fails the request.
 */
export async function writeWithSubtreesAhead<T>(
  store: Store,
  account: Account,
  now: Clock,
  retries: number,
  work: (tx: WriteTx, bound: SubtreeBound) => Promise<T>,
): Promise<T> {
  const writtenAhead = new Map<string, Task>();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await store.write(account.id, async (tx) => {
        const large: LargeSubtree[] = [];
        const bound: SubtreeBound = store.oneWriterForAll ? { writtenAhead, large } : 'unbounded';
        const result = await work(tx, bound);
        // Every rule of the request passed: only now may its large subtrees be written ahead.
        if (large.length > 0) throw new LargeSubtrees(large);
        return result;
      });
    } catch (error) {
      if (!(error instanceof LargeSubtrees) || attempt > retries) throw error;
      const context = treeContext(account.timezone, now());
      for (const large of error.subtrees) {
        const ahead = await writeSubtreeAhead(store, account.id, large, context);
        writtenAhead.set(ahead.id, ahead);
      }
    }
  }
}

/** One task created or changed by the rules of `upsert`, in the caller's transaction (CalDAV's too). */
export async function upsertOne(
  tx: WriteTx,
  zone: string,
  input: TaskInput,
  now: Micros,
  bound: SubtreeBound = 'unbounded',
): Promise<Task> {
  const { existing, draft } = await draftOf(tx, zone, input, now);
  const stored = await tx.put('task', draft);
  await carryToSubtree(tx, existing, stored, treeContext(zone, now), bound);
  return stored;
}

/** What an import did to one record. */
export type ImportChange = 'created' | 'updated' | 'unchanged';

/**
 * An import's tasks, in the caller's transaction, by the same rules as `upsert` (labels by name
 * found or made, every check of mergeTask); a task that would not change is not written, so
 * importing the same file again changes nothing, not even a change number.
 */
export async function importTasks(
  tx: WriteTx,
  zone: string,
  inputs: readonly TaskInput[],
  now: Micros,
): Promise<ImportChange[]> {
  return applyEach(inputs, true, async (input): Promise<ImportChange> => {
    const { existing, draft } = await draftOf(tx, zone, input, now);
    if (existing !== undefined && sameTask(existing, draft)) return 'unchanged';
    const stored = await tx.put('task', draft);
    await carryToSubtree(tx, existing, stored, treeContext(zone, now));
    return existing === undefined ? 'created' : 'updated';
  });
}

function treeContext(zone: string, now: Micros): Omit<MergeContext, 'project' | 'context'> {
  return { zone, now, newId: newRecordId(), newReminderId: newRecordId };
}

async function draftOf(
  tx: WriteTx,
  zone: string,
  input: TaskInput,
  now: Micros,
): Promise<{ existing: Task | undefined; draft: TaskDraft }> {
  const existing = input.id === undefined ? undefined : await tx.get('task', input.id);
  if (input.ifRev !== undefined && existing?.rev !== input.ifRev) {
    throw new DomainError({ kind: 'conflict', record: 'task', id: input.id ?? '' });
  }
  const project = await resolveLabel(tx, 'project', input.project, existing?.project ?? null);
  const context = await resolveLabel(tx, 'context', input.context, existing?.context ?? null);
  const draft = mergeTask(existing, input, {
    newId: newRecordId(),
    newReminderId: newRecordId,
    zone,
    now,
    project,
    context,
  });
  return { existing, draft: await placeInTree(tx, input, existing, draft) };
}

/**
 * Turns a request's project or context reference into the label to keep on the task. A name
 * finds the live label of that name or creates it; `""` means none, as old clients send it.
 * A reference with both (a whole task sent back) counts by the part the client changed: the name,
 * unless it is the task's current label name, in which case the id.
 */
async function resolveLabel(
  tx: WriteTx,
  kind: NamedKind,
  ref: LabelRef | undefined,
  current: Label | null,
): Promise<Label | null | undefined> {
  if (ref === undefined || ref === null) return ref;
  if (!('name' in ref)) return labelById(tx, kind, ref.id);
  if ('id' in ref && ref.name === current?.name) return labelById(tx, kind, ref.id);
  return labelByName(tx, kind, ref.name);
}

async function labelById(tx: WriteTx, kind: NamedKind, id: string): Promise<Label> {
  const found = await tx.get(kind, id);
  if (found === undefined || found.deleted !== null) throw invalid(`${kind}_id`, `no such ${kind}`);
  return { id: found.id, name: found.name };
}

async function labelByName(tx: WriteTx, kind: NamedKind, name: string): Promise<Label | null> {
  if (name === '') return null;
  const label = (await tx.findLive(kind, name)) ?? (await putNewLabel(tx, kind, name));
  return { id: label.id, name: label.name };
}

function putNewLabel(tx: WriteTx, kind: NamedKind, name: string): Promise<Label> {
  return kind === 'project'
    ? tx.put('project', { id: newRecordId(), name, notes: '', archived: null, deleted: null, color: null })
    : tx.put('context', { id: newRecordId(), name, deleted: null });
}
