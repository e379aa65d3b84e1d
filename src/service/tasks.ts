import type { Account } from '../domain/account.js';
import { DomainError, invalid } from '../domain/errors.js';
import { applyEach } from './apply-each.js';
import type { Label, LabelRef, Task, TaskInput } from '../domain/task.js';
import { mergeTask } from '../domain/task-rules.js';
import type { Store, WriteTx } from '../store/store.js';
import { answerOnce, type Answering } from './idempotency.js';
import { newRecordId } from './ids.js';

export class TaskService {
  constructor(private readonly store: Store) {}

  /**
   * Creates or updates each task, all in one transaction: every change gets its own `rev`, and one
   * refused task refuses them all. In an array request the error names the index.
   */
  upsert(account: Account, inputs: readonly TaskInput[], asArray: boolean, answering: Answering<Task>): Promise<string> {
    return this.store.write(account.id, (tx) =>
      answerOnce(tx, answering.idempotency, async () =>
        answering.render(await applyEach(inputs, asArray, (input) => this.upsertOne(tx, account.timezone, input))),
      ),
    );
  }

  private async upsertOne(tx: WriteTx, zone: string, input: TaskInput): Promise<Task> {
    const existing = input.id === undefined ? undefined : await tx.getTask(input.id);
    if (input.ifRev !== undefined && existing?.rev !== input.ifRev) {
      throw new DomainError({ kind: 'conflict', record: 'task', id: input.id ?? '' });
    }
    const project = await resolveLabel(tx, 'project', input.project, existing?.project ?? null);
    const context = await resolveLabel(tx, 'context', input.context, existing?.context ?? null);
    const draft = mergeTask(existing, input, { newId: newRecordId(), zone, project, context });
    return tx.putTask(draft);
  }
}

/**
 * Turns a request's project or context reference into the label to keep on the task. A name
 * finds the live label of that name or creates it; `""` means none, as old clients send it.
 * A reference with both (a whole task sent back) counts by the part the client changed: the name,
 * unless it is the task's current label name, in which case the id.
 */
async function resolveLabel(
  tx: WriteTx,
  kind: 'project' | 'context',
  ref: LabelRef | undefined,
  current: Label | null,
): Promise<Label | null | undefined> {
  if (ref === undefined || ref === null) return ref;
  if (!('name' in ref)) return labelById(tx, kind, ref.id);
  if ('id' in ref && ref.name === current?.name) return labelById(tx, kind, ref.id);
  return labelByName(tx, kind, ref.name);
}

async function labelById(tx: WriteTx, kind: 'project' | 'context', id: string): Promise<Label> {
  const found = kind === 'project' ? await tx.getProject(id) : await tx.getContext(id);
  if (found === undefined || found.deleted !== null) throw invalid(`${kind}_id`, `no such ${kind}`);
  return { id: found.id, name: found.name };
}

async function labelByName(tx: WriteTx, kind: 'project' | 'context', name: string): Promise<Label | null> {
  if (name === '') return null;
  if (kind === 'project') {
    const project =
      (await tx.findProjectByName(name)) ??
      (await tx.putProject({ id: newRecordId(), name, notes: '', archived: null, deleted: null }));
    return { id: project.id, name: project.name };
  }
  const context = (await tx.findContextByName(name)) ?? (await tx.putContext({ id: newRecordId(), name, deleted: null }));
  return { id: context.id, name: context.name };
}
