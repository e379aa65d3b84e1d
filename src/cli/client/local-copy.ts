/**
 * `task-service sync`: the local copy of the account's tasks and the cursor it is current to,
 * kept in the config folder, brought up to date with the SDK's sync.
 */
import { TaskServiceClient, type Task } from '../../client/index.js';
import { LOCAL_COPY_FILE, readJsonFile, writeJsonFile } from './files.js';

/** A task as kept in the file: the SDK's record, its Dates written as ISO text. */
export interface KeptTask {
  readonly id: string;
  readonly title: string;
  readonly rev: number;
  readonly [field: string]: unknown;
}

interface LocalCopy {
  readonly url: string;
  readonly cursor: string | undefined;
  /** By id; a Map, as an id may be any word of the id alphabet, `__proto__` included. */
  readonly tasks: ReadonlyMap<string, KeptTask>;
}

function isKeptTask(value: unknown): value is KeptTask {
  return (
    typeof value === 'object' &&
    value !== null &&
    'id' in value &&
    typeof value.id === 'string' &&
    'title' in value &&
    typeof value.title === 'string' &&
    'rev' in value &&
    typeof value.rev === 'number'
  );
}

/** The copy in the file, or an empty one (for another server, or none yet, or unreadable). */
async function readLocalCopy(dir: string, url: string): Promise<LocalCopy> {
  const empty: LocalCopy = { url, cursor: undefined, tasks: new Map() };
  let stored: unknown;
  try {
    stored = await readJsonFile(dir, LOCAL_COPY_FILE);
  } catch {
    return empty;
  }
  if (typeof stored !== 'object' || stored === null || !('url' in stored) || stored.url !== url) return empty;
  const cursor = 'cursor' in stored && typeof stored.cursor === 'string' ? stored.cursor : undefined;
  const tasks = new Map<string, KeptTask>();
  const kept: unknown[] = 'tasks' in stored && Array.isArray(stored.tasks) ? stored.tasks : [];
  for (const task of kept) if (isKeptTask(task)) tasks.set(task.id, task);
  return { url, cursor, tasks };
}

function keep(task: Task): KeptTask {
  // Through JSON, as the file keeps it: Dates become ISO text.
  const kept: unknown = JSON.parse(JSON.stringify(task));
  if (!isKeptTask(kept)) throw new TypeError('a task without id, title or rev');
  return kept;
}

export interface SyncReport {
  readonly added: KeptTask[];
  readonly changed: KeptTask[];
  readonly removed: KeptTask[];
  /** The saved cursor had expired (E008): everything was listed again. */
  readonly restarted: boolean;
  readonly cursor: string;
  readonly total: number;
}

export async function syncLocalCopy(client: TaskServiceClient, dir: string, url: string): Promise<SyncReport> {
  const before = await readLocalCopy(dir, url);
  let after = new Map(before.tasks);
  let cursor = before.cursor ?? '';
  let restarted = false;
  let listing: Map<string, KeptTask> | undefined;
  for await (const page of client.sync('tasks', before.cursor)) {
    restarted ||= page.restarted;
    if (page.full) {
      // A full listing replaces the copy once all its pages are in.
      listing ??= new Map();
      for (const task of page.entries) listing.set(task.id, keep(task));
    } else {
      for (const task of page.entries) {
        if (task.deleted === null) after.set(task.id, keep(task));
        else after.delete(task.id);
      }
    }
    cursor = page.cursor;
  }
  if (listing !== undefined) after = listing;
  await writeJsonFile(dir, LOCAL_COPY_FILE, { url, cursor, tasks: [...after.values()] });
  const kept = [...after.values()];
  const added = kept.filter((task) => !before.tasks.has(task.id));
  const changed = kept.filter((task) => {
    const old = before.tasks.get(task.id);
    return old !== undefined && old.rev !== task.rev;
  });
  const removed = [...before.tasks.values()].filter((task) => !after.has(task.id));
  return { added, changed, removed, restarted, cursor, total: after.size };
}
