/** Tasks as the terminal client lists them: each subtask under its parent, one level deeper. */

interface TreeTask {
  readonly id: string;
  readonly parent_id: string | null;
}

/**
 * The tasks in `order`, each subtask right after its parent (and its parent's earlier subtasks)
 * with its depth; a subtask whose parent is not listed stands at the top.
 */
export function inTreeOrder<T extends TreeTask>(tasks: readonly T[]): { task: T; depth: number }[] {
  const listed = new Set(tasks.map((task) => task.id));
  const children = new Map<string, T[]>();
  const roots: T[] = [];
  for (const task of tasks) {
    if (task.parent_id === null || !listed.has(task.parent_id) || task.parent_id === task.id) roots.push(task);
    else children.set(task.parent_id, [...(children.get(task.parent_id) ?? []), task]);
  }
  const ordered: { task: T; depth: number }[] = [];
  const seen = new Set<string>();
  const visit = (task: T, depth: number): void => {
    if (seen.has(task.id)) return;
    seen.add(task.id);
    ordered.push({ task, depth });
    for (const child of children.get(task.id) ?? []) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return ordered;
}
