/**
 * The browser's copy of the account (WEB.md section 3), in IndexedDB: tasks, projects and
 * contexts as last seen, each kind's sync cursor, the settings, and the queue of changes not yet
 * sent. A reload starts from here; signing out deletes the whole database.
 */
import { deleteDB, openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { Label, Settings, SyncedKind, Task, TaskBody } from './api.ts';

const DATABASE = 'task-service';
const VERSION = 1;

/** A change waiting to be sent, in the order it was made. */
export interface QueuedChange {
  /** Set by IndexedDB: the queue's order. */
  readonly seq?: number;
  readonly idempotencyKey: string;
  readonly body: TaskBody;
  /** The task's `rev` in this copy when the change was made; null for a new task. */
  readonly baseRev: number | null;
}

interface CopySchema extends DBSchema {
  tasks: { key: string; value: Task };
  projects: { key: string; value: Label };
  contexts: { key: string; value: Label };
  queue: { key: number; value: QueuedChange };
  /** Each kind's cursor, by kind. */
  cursors: { key: SyncedKind; value: string };
  /** The account's settings, under the key `settings`. */
  settings: { key: 'settings'; value: Settings };
}

export interface LocalCopy {
  readonly tasks: readonly Task[];
  readonly projects: readonly Label[];
  readonly contexts: readonly Label[];
  readonly queue: readonly QueuedChange[];
  readonly settings: Settings | null;
  readonly cursors: Partial<Record<SyncedKind, string>>;
}

export class LocalStore {
  private constructor(private readonly db: IDBPDatabase<CopySchema>) {}

  static async open(): Promise<LocalStore> {
    const db = await openDB<CopySchema>(DATABASE, VERSION, {
      upgrade(database) {
        database.createObjectStore('tasks', { keyPath: 'id' });
        database.createObjectStore('projects', { keyPath: 'id' });
        database.createObjectStore('contexts', { keyPath: 'id' });
        database.createObjectStore('queue', { keyPath: 'seq', autoIncrement: true });
        database.createObjectStore('cursors');
        database.createObjectStore('settings');
      },
    });
    return new LocalStore(db);
  }

  async load(): Promise<LocalCopy> {
    const tx = this.db.transaction(['tasks', 'projects', 'contexts', 'queue', 'cursors', 'settings']);
    const cursorStore = tx.objectStore('cursors');
    const [tasks, projects, contexts, queue, settings, tasksCursor, projectsCursor, contextsCursor] = await Promise.all(
      [
        tx.objectStore('tasks').getAll(),
        tx.objectStore('projects').getAll(),
        tx.objectStore('contexts').getAll(),
        tx.objectStore('queue').getAll(),
        tx.objectStore('settings').get('settings'),
        cursorStore.get('tasks'),
        cursorStore.get('projects'),
        cursorStore.get('contexts'),
      ],
    );
    const cursors: Partial<Record<SyncedKind, string>> = {};
    if (tasksCursor !== undefined) cursors.tasks = tasksCursor;
    if (projectsCursor !== undefined) cursors.projects = projectsCursor;
    if (contextsCursor !== undefined) cursors.contexts = contextsCursor;
    return { tasks, projects, contexts, queue, settings: settings ?? null, cursors };
  }

  /** Stores one answer of a listing: changed records in, deleted ones out, and the new cursor. */
  async applyPage<K extends SyncedKind>(
    kind: K,
    entries: readonly (K extends 'tasks' ? Task : Label)[],
    /** The cursor after this answer; null leaves the kept cursor as it is. */
    cursor: string | null,
    replaceAll: boolean,
  ): Promise<void> {
    const tx = this.db.transaction([kind, 'cursors'], 'readwrite');
    const store = tx.objectStore(kind);
    if (replaceAll) void store.clear();
    for (const entry of entries) void (entry.deleted === null ? store.put(entry) : store.delete(entry.id));
    if (cursor !== null) void tx.objectStore('cursors').put(cursor, kind);
    await tx.done;
  }

  /** Whose copy this is (the settings' account id); null when none was kept. */
  async ownerId(): Promise<string | null> {
    return (await this.db.get('settings', 'settings'))?.id ?? null;
  }

  async saveSettings(settings: Settings): Promise<void> {
    await this.db.put('settings', settings, 'settings');
  }

  /** Queues a change and keeps its optimistic result, in one transaction. */
  async enqueue(change: QueuedChange, result: Task): Promise<QueuedChange> {
    const tx = this.db.transaction(['queue', 'tasks'], 'readwrite');
    const seq = await tx.objectStore('queue').add(change);
    void tx.objectStore('tasks').put(result);
    await tx.done;
    return { ...change, seq };
  }

  async dequeue(seq: number): Promise<void> {
    await this.db.delete('queue', seq);
  }

  /** Empties every store: the copy, the cursors, the settings and the queue. */
  async clear(): Promise<void> {
    const names = ['tasks', 'projects', 'contexts', 'queue', 'cursors', 'settings'] as const;
    const tx = this.db.transaction(names, 'readwrite');
    await Promise.all([...names.map(async (name) => tx.objectStore(name).clear()), tx.done]);
  }

  close(): void {
    this.db.close();
  }

  /** Forgets everything the browser kept of the account. */
  static async erase(store: LocalStore | null): Promise<void> {
    store?.close();
    await deleteDB(DATABASE);
  }
}
