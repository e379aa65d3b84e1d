import type { Account } from '../domain/account.js';
import { DomainError, invalid } from '../domain/errors.js';
import { applyEach } from './apply-each.js';
import type { Context, LabelInput, LabelKind, Project } from '../domain/label.js';
import { mergeContext, mergeProject, touchesTasks } from '../domain/label-rules.js';
import type { Store, WriteTx } from '../store/store.js';
import { answerOnce, type Answering } from './idempotency.js';
import { newRecordId } from './ids.js';

/** The parts in which projects and contexts differ, so one use case serves both. */
interface LabelAccess<L extends Project | Context> {
  readonly kind: LabelKind;
  get(tx: WriteTx, id: string): Promise<L | undefined>;
  findByName(tx: WriteTx, name: string): Promise<L | undefined>;
  put(tx: WriteTx, existing: L | undefined, input: LabelInput, newId: string): Promise<L>;
}

const projects: LabelAccess<Project> = {
  kind: 'project',
  get: (tx, id) => tx.getProject(id),
  findByName: (tx, name) => tx.findProjectByName(name),
  put: (tx, existing, input, newId) => tx.putProject(mergeProject(existing, input, newId)),
};

const contexts: LabelAccess<Context> = {
  kind: 'context',
  get: (tx, id) => tx.getContext(id),
  findByName: (tx, name) => tx.findContextByName(name),
  put: (tx, existing, input, newId) => tx.putContext(mergeContext(existing, input, newId)),
};

/**
 * Projects and contexts: create or update, names unique among the live ones, and a rename or
 * deletion shown on each of the label's tasks as a change of that task, in the same transaction.
 */
export class LabelService {
  constructor(private readonly store: Store) {}

  upsertProjects(
    account: Account,
    inputs: readonly LabelInput[],
    asArray: boolean,
    answering: Answering<Project>,
  ): Promise<string> {
    return this.upsert(account, projects, inputs, asArray, answering);
  }

  upsertContexts(
    account: Account,
    inputs: readonly LabelInput[],
    asArray: boolean,
    answering: Answering<Context>,
  ): Promise<string> {
    return this.upsert(account, contexts, inputs, asArray, answering);
  }

  private upsert<L extends Project | Context>(
    account: Account,
    access: LabelAccess<L>,
    inputs: readonly LabelInput[],
    asArray: boolean,
    answering: Answering<L>,
  ): Promise<string> {
    return this.store.write(account.id, (tx) =>
      answerOnce(tx, answering.idempotency, async () =>
        answering.render(await applyEach(inputs, asArray, (input) => upsertOne(tx, access, input))),
      ),
    );
  }
}

async function upsertOne<L extends Project | Context>(tx: WriteTx, access: LabelAccess<L>, input: LabelInput): Promise<L> {
  const existing = input.id === undefined ? undefined : await access.get(tx, input.id);
  if (input.ifRev !== undefined && existing?.rev !== input.ifRev) {
    throw new DomainError({ kind: 'conflict', record: access.kind, id: input.id ?? '' });
  }
  const name = input.name ?? existing?.name;
  const willBeLive = (input.deleted === undefined ? (existing?.deleted ?? null) : input.deleted) === null;
  if (name !== undefined && willBeLive) {
    const holder = await access.findByName(tx, name);
    if (holder !== undefined && holder.id !== existing?.id) throw invalid('name', 'taken');
  }
  const saved = await access.put(tx, existing, input, newRecordId());
  if (touchesTasks(existing, saved)) {
    const label = saved.deleted === null ? { id: saved.id, name: saved.name } : null;
    for (const task of await tx.tasksWithLabel(access.kind, saved.id)) {
      await tx.putTask(access.kind === 'project' ? { ...task, project: label } : { ...task, context: label });
    }
  }
  return saved;
}
