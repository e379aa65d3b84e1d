/**
 * Keeps the browser's copy in step with the server (WEB.md section 3): a first full listing, then
 * only changes from each kind's cursor, in a round started as soon as the server says something
 * changed (live.ts), or every few seconds where it cannot say; E008 lists again from scratch. Changes
 * made here are applied to the copy at once and queued; the queue is sent in order, each change
 * with its own Idempotency-Key, whenever the server can be reached.
 */
import {
  TaskServiceError,
  UnavailableError,
  type ApiClient,
  type Label,
  type SyncedKind,
  type Task,
  type TaskBody,
} from './api.ts';
import { applyChange } from './apply-change.ts';
import { randomId } from './ids.ts';
import { LiveFollower } from './live.ts';
import type { LocalStore, QueuedChange } from './local-copy.ts';
import { contexts, listedAnew, notice, online, projects, ready, settings, signedOut, tasks, waiting } from './state.ts';

/** Entries per list answer: a first listing shows its first page while the rest arrives. */
const PAGE_SIZE = 2000;
const KINDS: readonly SyncedKind[] = ['projects', 'contexts', 'tasks'];

export class SyncEngine {
  private queue: QueuedChange[] = [];
  private cursors: Partial<Record<SyncedKind, string>> = {};
  /** The round under way (with the rounds asked for meanwhile), or null. */
  private running: Promise<void> | null = null;
  private again = false;
  /** Whether the last round reached the server. */
  private reached = false;
  private readonly follower: LiveFollower;
  private stopped = false;
  /** A new token was taken after an E401 and has not yet carried a whole round. */
  private renewed = false;
  /** Whose copy this is (from the settings); null before the first answer. */
  private accountId: string | null = null;
  /** The copy's writes under way, in order. */
  private saving: Promise<void> = Promise.resolve();
  /** The queue's entries being written to IndexedDB, in order. */
  private keeping: Promise<void> = Promise.resolve();
  private readonly onWake = (): void => {
    this.follower.wake();
    this.kick();
  };
  /**
   * Per task, the revs that only this app's own writes produced, and the latest: a change made
   * while the version shown was one of those was made against this app's own edits, so it is
   * checked (`if_rev`) against the latest; another client's write in between is still a conflict.
   */
  private readonly ownRevs = new Map<string, { readonly seen: Set<number>; latest: number }>();

  constructor(
    private readonly api: ApiClient,
    private readonly store: LocalStore,
    /** A new token from the browser's session after an E401; false when it has ended too. */
    private readonly renewToken: () => Promise<boolean>,
  ) {
    this.follower = new LiveFollower({
      sync: async () => this.sync(),
      tasksCursor: () => this.cursors.tasks,
      waitForTasks: async (cursor, seconds, signal) => this.api.waitForTasks(cursor, seconds, signal),
      accountId: () => this.accountId,
    });
  }

  /** Shows the browser's copy at once, then starts syncing. */
  async start(): Promise<void> {
    const copy = await this.store.load();
    this.queue = [...copy.queue];
    this.cursors = { ...copy.cursors };
    waiting.value = this.queue.length;
    settings.value = copy.settings;
    this.accountId = copy.settings?.id ?? null;
    projects.value = labelMap(copy.projects);
    contexts.value = labelMap(copy.contexts);
    const loaded = new Map(copy.tasks.map((task) => [task.id, task]));
    this.overlayQueue(loaded, null);
    tasks.value = loaded;
    if (copy.settings !== null) ready.value = true;
    addEventListener('online', this.onWake);
    addEventListener('focus', this.onWake);
    // Its first round is the start's.
    this.follower.start();
  }

  stop(): void {
    this.stopped = true;
    this.follower.stop();
    removeEventListener('online', this.onWake);
    removeEventListener('focus', this.onWake);
  }

  /** Syncs now, or right after the round under way. */
  kick(): void {
    void this.sync();
  }

  /** A round now (or right after the one under way); true when it reached the server. */
  private async sync(): Promise<boolean> {
    if (this.stopped) return false;
    if (this.running !== null) this.again = true;
    else this.running = this.run();
    await this.running;
    return this.reached;
  }

  /** Applies a change to the copy at once and queues it for the server. */
  async change(body: TaskBody): Promise<void> {
    const before = tasks.value.get(body.id);
    const result = applyChange(before, body, Date.now());
    const next = new Map(tasks.value);
    if (result.deleted === null) next.set(result.id, result);
    else next.delete(result.id);
    tasks.value = next;
    // Queued at once, before IndexedDB has it: an answer to an earlier change arriving meanwhile
    // lays the queue over the server's version, and this change must be part of that queue.
    const pending: QueuedChange = { idempotencyKey: randomId(), body, baseRev: before?.rev ?? null };
    this.queue.push(pending);
    waiting.value = this.queue.length;
    const kept = this.store.enqueue(pending, result).then((queued) => {
      const at = this.queue.indexOf(pending);
      if (at !== -1) this.queue[at] = queued;
    });
    // A change IndexedDB could not keep is still sent while this page lives.
    this.keeping = this.keeping.then(async () => kept).catch(() => undefined);
    await kept;
    this.kick();
  }

  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.round();
      } while (this.again && !this.stopped);
    } finally {
      this.running = null;
    }
  }

  private async round(): Promise<void> {
    this.reached = false;
    try {
      // Whose data this is comes first: nothing queued for another account may be sent.
      const account = await this.api.getSettings();
      if (this.accountId !== null && account.id !== this.accountId) await this.forgetOtherAccount();
      this.accountId = account.id;
      settings.value = account;
      await this.flush();
      // The kinds are independent: listed side by side, each stored in the background.
      await Promise.all(KINDS.map(async (kind) => this.pull(kind)));
      online.value = true;
      this.reached = true;
      ready.value = true;
      this.renewed = false;
      await Promise.all([this.saving, this.store.saveSettings(account)]);
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof UnavailableError) online.value = false;
      else if (error instanceof TaskServiceError && error.retcode === 'E401') {
        // Once per refusal: a new token refused again means something else is wrong.
        if (!this.renewed && (await this.renewToken())) {
          this.renewed = true;
          this.again = true;
        } else await this.sessionEnded();
      } else notice.value = error instanceof Error ? error.message : String(error);
    }
  }

  /**
   * The token now belongs to another account than the copy: the copy, its cursors and its
   * queue are the other account's, and are dropped before anything is shown or sent.
   */
  private async forgetOtherAccount(): Promise<void> {
    await this.saving;
    await this.store.clear();
    this.queue = [];
    this.cursors = {};
    waiting.value = 0;
    tasks.value = new Map();
    projects.value = new Map();
    contexts.value = new Map();
  }

  /**
   * E401: the server no longer takes the token. Syncing stops; the copy is erased unless changes
   * are still waiting, which stay for the same person's next sign-in (another account's sign-in
   * drops them, forgetOtherAccount).
   */
  private async sessionEnded(): Promise<void> {
    this.stop();
    await this.saving;
    if (this.queue.length === 0) await this.store.clear();
    signedOut.value = 'session-ended';
  }

  /** Sends the queue in order; stops (keeping the rest) when the server cannot be reached. */
  private async flush(): Promise<void> {
    while (this.queue.length > 0 && !this.stopped) {
      // A change is sent only once IndexedDB keeps it, so that its answer can take it off again.
      await this.keeping;
      const change = this.queue[0];
      if (change === undefined) break;
      const chain = this.ownRevs.get(change.body.id);
      const body =
        change.body.if_rev !== undefined && chain !== undefined && chain.seen.has(change.body.if_rev)
          ? { ...change.body, if_rev: chain.latest }
          : change.body;
      let stored: Task | null;
      try {
        stored = await this.api.postTask(body, change.idempotencyKey);
        this.noteOwnRev(change, body, stored.rev);
      } catch (error) {
        if (!(error instanceof TaskServiceError) || error.retcode === 'E401') throw error;
        stored = await this.refused(change, error);
      }
      this.queue.shift();
      if (change.seq !== undefined) await this.store.dequeue(change.seq);
      waiting.value = this.queue.length;
      if (stored !== null) await this.acceptTask(stored);
    }
  }

  private noteOwnRev(change: QueuedChange, sent: TaskBody, rev: number): void {
    const chain = this.ownRevs.get(sent.id) ?? { seen: new Set<number>(), latest: rev };
    if (change.baseRev !== null) chain.seen.add(change.baseRev);
    if (sent.if_rev !== undefined) chain.seen.add(sent.if_rev);
    chain.seen.add(rev);
    chain.latest = rev;
    this.ownRevs.set(sent.id, chain);
  }

  /** A change the server refused is dropped; the task is read again and the person is told why. */
  private async refused(change: QueuedChange, error: TaskServiceError): Promise<Task | null> {
    let fresh: Task | null = null;
    try {
      fresh = await this.api.getTask(change.body.id);
    } catch (reload) {
      if (!(reload instanceof TaskServiceError)) throw reload;
    }
    const title = fresh?.title ?? change.body.title ?? 'the task';
    notice.value =
      error.retcode === 'E009'
        ? `“${title}” was changed elsewhere: it has been reloaded, and your change was not saved.`
        : `Your change to “${title}” was not saved: ${error.retmsg}`;
    if (fresh === null) {
      const next = new Map(tasks.value);
      next.delete(change.body.id);
      tasks.value = next;
    }
    return fresh;
  }

  /** The server's version of a task, with changes still queued for it on top. */
  private async acceptTask(task: Task): Promise<void> {
    const next = new Map(tasks.value);
    if (task.deleted === null) next.set(task.id, task);
    else next.delete(task.id);
    this.overlayQueue(next, new Set([task.id]));
    tasks.value = next;
    await this.store.applyPage('tasks', [task], null, false);
  }

  /** Reads what changed since the kind's cursor, or everything when there is none (or E008). */
  private async pull(kind: SyncedKind): Promise<void> {
    let cursor = this.cursors[kind];
    let replace = cursor === undefined;
    let listedAgain = false;
    for (;;) {
      let page;
      try {
        page = await this.api.list(kind, cursor === undefined ? { limit: PAGE_SIZE } : { cursor, limit: PAGE_SIZE });
      } catch (error) {
        if (error instanceof TaskServiceError && error.retcode === 'E008' && !listedAgain) {
          // The server's data was restored, or this copy is too old to continue from: list
          // everything again, once; queued changes stay queued (sent before this listing).
          listedAgain = true;
          listedAnew.value = true;
          cursor = undefined;
          replace = true;
          continue;
        }
        throw error;
      }
      if (kind === 'tasks') this.applyTasks(page.entries.filter(isTask), replace);
      else this.applyLabels(kind, page.entries.filter(isLabel), replace);
      this.save(kind, page.entries, page.cursor, replace);
      this.cursors[kind] = page.cursor;
      cursor = page.cursor;
      replace = false;
      if (!page.hasMore) return;
    }
  }

  /**
   * Stores a list answer in the copy without holding up the next request; the writes stay in
   * order, and a round ends only when they are done.
   */
  private save(kind: SyncedKind, entries: readonly (Task | Label)[], cursor: string, replace: boolean): void {
    const write = async (): Promise<void> => {
      if (kind === 'tasks') await this.store.applyPage('tasks', entries.filter(isTask), cursor, replace);
      else await this.store.applyPage(kind, entries.filter(isLabel), cursor, replace);
    };
    this.saving = this.saving.catch(() => undefined).then(write);
  }

  private applyTasks(entries: readonly Task[], replace: boolean): void {
    if (entries.length === 0 && !replace) return;
    const next = replace ? new Map<string, Task>() : new Map(tasks.value);
    for (const task of entries) {
      if (task.deleted === null) next.set(task.id, task);
      else next.delete(task.id);
    }
    this.overlayQueue(next, replace ? null : new Set(entries.map((task) => task.id)));
    tasks.value = next;
  }

  private applyLabels(kind: 'projects' | 'contexts', entries: readonly Label[], replace: boolean): void {
    if (entries.length === 0 && !replace) return;
    const target = kind === 'projects' ? projects : contexts;
    const next = replace ? new Map<string, Label>() : new Map(target.value);
    for (const label of entries) {
      if (label.deleted === null) next.set(label.id, label);
      else next.delete(label.id);
    }
    target.value = next;
  }

  /** Re-applies queued changes (of `only` these tasks, or all) on top of the server's versions. */
  private overlayQueue(map: Map<string, Task>, only: ReadonlySet<string> | null): void {
    for (const change of this.queue) {
      if (only !== null && !only.has(change.body.id)) continue;
      const result = applyChange(map.get(change.body.id), change.body, Date.now());
      if (result.deleted === null) map.set(result.id, result);
      else map.delete(result.id);
    }
  }
}

function labelMap(labels: readonly Label[]): Map<string, Label> {
  return new Map(labels.map((label) => [label.id, label]));
}

function isTask(record: Task | Label): record is Task {
  return 'title' in record;
}

function isLabel(record: Task | Label): record is Label {
  return !('title' in record);
}
