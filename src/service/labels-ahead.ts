import type { NamedKind } from '../domain/sync.js';
import type { Label, Task } from '../domain/task.js';
import type { Store, WriteTx } from '../store/store.js';

/**
 * Tasks one commit may rewrite for a rename or deletion of their project or context where one
 * account's commit holds every other (SQLite): a label on more is shown on its tasks ahead, in
 * commits of this many (showLabelAhead).
 */
export const LABEL_COMMIT = 500;

/** A label's rename or deletion to be shown on more than LABEL_COMMIT tasks: what they are to show. */
export interface LargeLabelChange {
  readonly kind: NamedKind;
  readonly id: string;
  /** The label as its tasks show it after the change; null once it is deleted. */
  readonly label: Label | null;
}

/**
 * Raised at the end of a request whose label changes are to be shown on many tasks, once every
 * other rule of the request passed: its transaction rolls back, the tasks are rewritten ahead,
 * and the request runs again, rewriting only what other writes put meanwhile.
 */
class LargeLabelChanges extends Error {
  constructor(readonly changes: readonly LargeLabelChange[]) {
    super(`${changes.length} label changes are shown on their tasks ahead in commits of ${LABEL_COMMIT}`);
    this.name = 'LargeLabelChanges';
  }
}

/**
 * How many tasks one commit may rewrite for a label: all of them (PostgreSQL, imports, a CalDAV
 * calendar deleted, whose tasks left it ahead: collection-delete.ts), or up to LABEL_COMMIT, a
 * larger change being noted in `large` and left for showLabelAhead.
 */
export type LabelBound = 'unbounded' | { readonly large: LargeLabelChange[] };

/**
 * Runs `work` in one write of the account, its label changes bounded where one account's commit
 * holds every other (SQLite): a label to be shown on more than LABEL_COMMIT tasks is shown on them
 * ahead, once every rule of `work` passed, and `work` runs again, rewriting only what other writes
 * put under the label meanwhile. Should `work` be refused on that second run (another project took
 * the name meanwhile), the tasks show the labels as stored again before the error goes on. Bounded
 * twice at most: should other writes keep putting hundreds of tasks under the label, the last run
 * shows it on them in its own commit.
 */
export async function writeShowingLabelsAhead<T>(
  store: Store,
  accountId: number,
  work: (tx: WriteTx, bound: LabelBound) => Promise<T>,
): Promise<T> {
  let shownAhead: readonly LargeLabelChange[] = [];
  for (let attempt = 0; ; attempt += 1) {
    const bounded = store.oneWriterForAll && attempt < 2;
    try {
      return await store.write(accountId, async (tx) => {
        const bound: LabelBound = bounded ? { large: [] } : 'unbounded';
        const result = await work(tx, bound);
        if (bound !== 'unbounded' && bound.large.length > 0) throw new LargeLabelChanges(bound.large);
        return result;
      });
    } catch (error) {
      if (error instanceof LargeLabelChanges) {
        shownAhead = [...shownAhead, ...error.changes];
        for (const change of error.changes) await showLabelAhead(store, accountId, change);
        continue;
      }
      if (shownAhead.length > 0) await showAsStored(store, accountId, shownAhead);
      throw error;
    }
  }
}

async function showAsStored(store: Store, accountId: number, changes: readonly LargeLabelChange[]): Promise<void> {
  for (const { kind, id } of changes) {
    const stored = await store.get(accountId, kind, id);
    const label = stored === undefined || stored.deleted !== null ? null : { id, name: stored.name };
    await showLabelAhead(store, accountId, { kind, id, label });
  }
}

/** `task` showing `label` as the kind's label. */
export function showingLabel(task: Task, kind: NamedKind, label: Label | null): Task {
  return kind === 'project' ? { ...task, project: label } : { ...task, context: label };
}

/**
 * Rewrites the tasks of label `change.id` to show `change.label`, LABEL_COMMIT tasks per commit,
 * so that other accounts' writes commit between them (issue #22's rule for subtrees, for labels):
 * each commit reads only tasks not showing it yet. Used before the request that changes the label
 * (its tasks first, the label last, so a request cut short is finished by sending it again), and
 * to put the tasks back to the label as stored when that request was refused after all. Each task
 * rewritten is a change of its own.
 */
async function showLabelAhead(store: Store, accountId: number, change: LargeLabelChange): Promise<void> {
  const { kind, id, label } = change;
  const slice = { shown: label, limit: LABEL_COMMIT };
  for (;;) {
    const written = await store.write(accountId, async (tx) => {
      const pending = await tx.withLabel(kind, id, slice);
      for (const task of pending) await tx.put('task', showingLabel(task, kind, label));
      return pending.length;
    });
    if (written < LABEL_COMMIT) return;
  }
}
