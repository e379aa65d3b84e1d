/**
 * The terminal client's local copy of the account's tasks, kept in the config folder: the tasks as
 * last seen (by `sync`, or as this client's own writes were answered), the cursor it is current
 * to, the account's zone, and the writes made while the service could not be reached, each with
 * its client-made id and Idempotency-Key, sent in order by the next `sync` (as the web app's
 * queue is). Everything the client shows without the service comes from here.
 */
import { z } from 'zod';
import { BOXES, TaskServiceError, type Task, type TaskServiceClient, type TaskWrite } from '../../client/index.js';
import { LOCAL_COPY_FILE, readJsonFile, writeJsonFile } from './files.js';

/** The fields of a task the client lists, filters and prints: the SDK's Task has them all. */
export type KeptTask = Pick<
  Task,
  | 'id'
  | 'title'
  | 'rev'
  | 'attribute'
  | 'all_day'
  | 'start_at'
  | 'end_at'
  | 'completed'
  | 'trashed'
  | 'deleted'
  | 'project'
  | 'context'
  | 'tags'
  | 'priority'
  | 'repeater'
  | 'parent_id'
>;

const instant = z.iso.datetime().transform((text) => new Date(text));

/** A task as the file keeps it (Dates as ISO text); other fields an older file kept are ignored. */
const keptTaskSchema = z.object({
  id: z.string(),
  title: z.string(),
  rev: z.number(),
  attribute: z.enum(BOXES),
  all_day: z.boolean(),
  start_at: instant.nullable(),
  end_at: instant.nullable(),
  completed: instant.nullable(),
  trashed: instant.nullable(),
  deleted: instant.nullable(),
  project: z.string().nullable(),
  context: z.string().nullable(),
  tags: z.array(z.string()),
  priority: z.number(),
  repeater: z.string().nullable(),
  // A copy kept before subtasks has none.
  parent_id: z.string().nullable().default(null),
});

/** A write kept for the next sync: what `add` and `done` send, dates as the contract writes them. */
const queuedWriteSchema = z.object({
  key: z.string(),
  /** What the person did, for the lines `sync` prints: `add Buy milk`, `done Buy milk`. */
  what: z.string(),
  write: z.object({
    id: z.string(),
    title: z.string().optional(),
    attribute: z.enum(BOXES).optional(),
    all_day: z.boolean().optional(),
    start_at: z.string().optional(),
    completed: z.string().optional(),
    project: z.string().optional(),
    context: z.string().optional(),
    tags: z.array(z.string()).optional(),
    priority: z.number().optional(),
    reminders: z.array(z.object({ before: z.number(), of: z.enum(['start_at', 'end_at']) })).optional(),
    if_rev: z.number().optional(),
  }),
});

export type QueuedWrite = z.infer<typeof queuedWriteSchema>;

export interface LocalCopy {
  readonly url: string;
  /** Where the copy is current to; undefined: never synced (the next sync lists everything). */
  readonly cursor: string | undefined;
  /** The account's zone, as the service last said it. */
  readonly zone: string | undefined;
  /** When a sync last brought the copy up to date (ISO), if ever. */
  readonly syncedAt: string | undefined;
  /** By id; a Map, as an id may be any word of the id alphabet, `__proto__` included. */
  readonly tasks: ReadonlyMap<string, KeptTask>;
  readonly queue: readonly QueuedWrite[];
}

const localCopySchema = z.object({
  url: z.string(),
  cursor: z.string().optional(),
  zone: z.string().optional(),
  synced_at: z.string().optional(),
  tasks: z.array(z.unknown()).optional(),
  queue: z.array(z.unknown()).optional(),
});

function emptyCopy(url: string): LocalCopy {
  return { url, cursor: undefined, zone: undefined, syncedAt: undefined, tasks: new Map(), queue: [] };
}

/** The copy in the file, or an empty one (for another server, or none yet, or unreadable). */
export async function readLocalCopy(dir: string, url: string): Promise<LocalCopy> {
  let stored: unknown;
  try {
    stored = await readJsonFile(dir, LOCAL_COPY_FILE);
  } catch {
    return emptyCopy(url);
  }
  const parsed = localCopySchema.safeParse(stored);
  if (!parsed.success || parsed.data.url !== url) return emptyCopy(url);
  const tasks = new Map<string, KeptTask>();
  for (const entry of parsed.data.tasks ?? []) {
    const task = keptTaskSchema.safeParse(entry);
    if (task.success) tasks.set(task.data.id, task.data);
  }
  const queue = (parsed.data.queue ?? []).flatMap((entry) => {
    const write = queuedWriteSchema.safeParse(entry);
    return write.success ? [write.data] : [];
  });
  return { url, cursor: parsed.data.cursor, zone: parsed.data.zone, syncedAt: parsed.data.synced_at, tasks, queue };
}

export async function saveLocalCopy(dir: string, copy: LocalCopy): Promise<void> {
  await writeJsonFile(dir, LOCAL_COPY_FILE, {
    url: copy.url,
    cursor: copy.cursor,
    zone: copy.zone,
    synced_at: copy.syncedAt,
    tasks: [...copy.tasks.values()].map(keep),
    queue: copy.queue,
  });
}

/** Only the kept fields, so that the file holds what it is read back as. */
function keep(task: KeptTask): KeptTask {
  return keptTaskSchema.parse(JSON.parse(JSON.stringify(task)));
}

/** The copy with `task` as the service answered (or, queued, as it will be). */
export function withTask(copy: LocalCopy, task: KeptTask): LocalCopy {
  return { ...copy, tasks: new Map(copy.tasks).set(task.id, keep(task)) };
}

export interface SyncReport {
  /** The queued writes sent, and the ones the service refused (dropped, with why). */
  readonly sent: string[];
  readonly refused: string[];
  readonly added: KeptTask[];
  readonly changed: KeptTask[];
  readonly removed: KeptTask[];
  /** The saved cursor had expired (E008): everything was listed again. */
  readonly restarted: boolean;
  readonly cursor: string;
  readonly total: number;
}

/** The queued write as the SDK sends it. */
function taskWriteOf(queued: QueuedWrite): TaskWrite {
  return queued.write;
}

/**
 * Sends the queue in order, then brings the copy up to date. Each write sent is in the copy as the
 * service answered it before the changes are fetched, so this client's own writes never come
 * back as changes. A write the service refuses is dropped and said; the copy is then listed again
 * whole, undoing what it had shown of the write. Fails (the queue kept, from the first write not
 * sent) when the service cannot be reached.
 */
export async function syncLocalCopy(
  client: TaskServiceClient,
  dir: string,
  url: string,
  /** Seconds the service may hold the answer until something changes (`sync --follow`). */
  wait?: number,
): Promise<SyncReport> {
  let copy = await readLocalCopy(dir, url);
  const sent: string[] = [];
  const refused: string[] = [];
  while (copy.queue.length > 0) {
    const [queued, ...rest] = copy.queue;
    if (queued === undefined) break;
    try {
      const saved = await client.tasks.save(taskWriteOf(queued), { idempotencyKey: queued.key });
      copy = withTask({ ...copy, queue: rest }, saved);
      sent.push(queued.what);
    } catch (error) {
      if (!(error instanceof TaskServiceError)) {
        await saveLocalCopy(dir, copy);
        throw error;
      }
      copy = { ...copy, queue: rest, cursor: undefined };
      refused.push(`${queued.what}: ${error.message}`);
    }
    await saveLocalCopy(dir, copy);
  }

  const before = copy.tasks;
  let after = new Map(before);
  let cursor = copy.cursor ?? '';
  let restarted = false;
  let listing: Map<string, KeptTask> | undefined;
  for await (const page of client.sync('tasks', copy.cursor, wait === undefined ? {} : { wait })) {
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
  await saveLocalCopy(dir, { ...copy, cursor, syncedAt: new Date().toISOString(), tasks: after });
  const kept = [...after.values()];
  const added = kept.filter((task) => !before.has(task.id));
  const changed = kept.filter((task) => {
    const old = before.get(task.id);
    return old !== undefined && old.rev !== task.rev;
  });
  const removed = [...before.values()].filter((task) => !after.has(task.id));
  return { sent, refused, added, changed, removed, restarted, cursor, total: after.size };
}
