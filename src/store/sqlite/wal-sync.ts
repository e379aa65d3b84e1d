import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * When the commits of the write connection are on disk. The store tells it of each commit and
 * answers the writes in it only once `afterCommit` resolved; reads of synced data wait with
 * `covered` so that they never show a change a power cut could still take back.
 */
export interface CommitDurability {
  /** Call right after a COMMIT: resolves once that commit (and every earlier one) is durable. */
  afterCommit(): Promise<void>;
  /** How far the commits made so far go; pass it to `covered` after reading them. */
  mark(): number;
  /** Resolves once every commit up to `mark` is durable. */
  covered(mark: number): Promise<void>;
  /** Waits for the syncs under way, then lets go of the files (the store is closing). */
  close(): Promise<void>;
}

/** `--synchronous NORMAL`: a commit is answered as soon as it is made; a power cut may undo it. */
export const UNSYNCED: CommitDurability = {
  afterCommit: () => Promise.resolve(),
  mark: () => 0,
  covered: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

interface Sync {
  /** The commits written before this sync started, and so on disk once it is done. */
  readonly through: number;
  readonly done: Promise<void>;
}

/**
 * The default durability (`--synchronous FULL`): the write connection runs SQLite's
 * `synchronous=NORMAL`, which makes a commit by writing it to the WAL without waiting for the
 * disk, and this flushes the WAL with `fdatasync` on libuv's thread pool, off the event loop.
 * That is the sync SQLite's own FULL makes inside COMMIT, where it would block every request.
 *
 * One sync runs at a time; the commits made while it runs share the next one (group commit of the
 * syncs, as the writes share a transaction). The WAL only grows between checkpoints and a sync
 * flushes everything written to the file before it started, so a later sync also covers every
 * earlier commit. The WAL is opened once, at the first sync, and its folder synced then, so that
 * the new file's name is on disk too. It stays the same file while the store is open: SQLite
 * deletes it only when the last connection to the database closes, and the store's write
 * connection is open until `close` (truncating it after a checkpoint keeps the file). SQLite takes
 * its POSIX locks on the database and `-shm` files, never on the WAL, so this descriptor of the
 * WAL cannot drop one of them when it is closed.
 *
 * A failed sync fails every later one too: after an fsync error the kernel may have dropped the
 * dirty pages, so a later sync that succeeds would prove nothing. The writes waiting are refused
 * (their outcome is unknown, as after a crash) and the process needs a restart, when SQLite
 * reads the WAL back from the disk.
 */
export class WalSync implements CommitDurability {
  readonly #walFile: string;
  readonly #folder: string;
  /** Commits made so far (a count; each gets the next number). */
  #commits = 0;
  /** Commits known to be on disk. */
  #durable = 0;
  #running: Sync | undefined;
  /** The sync that starts when the running one ends, for the commits made meanwhile. */
  #next: Promise<void> | undefined;
  #wal: Promise<FileHandle> | undefined;
  #failure: Error | undefined;

  constructor(databaseFile: string) {
    this.#walFile = `${databaseFile}-wal`;
    this.#folder = path.dirname(databaseFile);
  }

  afterCommit(): Promise<void> {
    this.#commits += 1;
    return this.covered(this.#commits);
  }

  mark(): number {
    return this.#commits;
  }

  covered(mark: number): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#durable >= mark) return Promise.resolve();
    const running = this.#running;
    if (running === undefined) return this.#start().done;
    if (running.through >= mark) return running.done;
    this.#next ??= running.done.then(
      () => this.#startNext(),
      () => this.#startNext(),
    );
    return this.#next;
  }

  async close(): Promise<void> {
    while (this.#running !== undefined) await this.#running.done.catch(() => undefined);
    const wal = await this.#wal?.catch(() => undefined);
    this.#wal = undefined;
    await wal?.close();
  }

  #startNext(): Promise<void> {
    this.#next = undefined;
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return this.#start().done;
  }

  #start(): Sync {
    const through = this.#commits;
    const sync: Sync = {
      through,
      done: this.#flush().then(
        () => {
          this.#durable = Math.max(this.#durable, through);
          this.#running = undefined;
        },
        (error: unknown) => {
          this.#failure ??= new Error(`syncing ${this.#walFile} failed`, { cause: error });
          this.#running = undefined;
          throw this.#failure;
        },
      ),
    };
    this.#running = sync;
    return sync;
  }

  async #flush(): Promise<void> {
    this.#wal ??= this.#openWal();
    await (await this.#wal).datasync();
  }

  async #openWal(): Promise<FileHandle> {
    const wal = await open(this.#walFile, 'r');
    try {
      await syncFolder(this.#folder);
      return wal;
    } catch (error) {
      await wal.close();
      throw error;
    }
  }
}

/** Makes a new directory entry (the WAL file's name) durable. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
