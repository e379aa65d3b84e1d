import type { AccountHead } from '../domain/sync.js';

/** A list answer kept as sent (UTF-8 bytes, so it is encoded once), its gzip made on first demand. */
export interface KeptAnswer {
  readonly body: Buffer;
  gzipped: Buffer | undefined;
}

/** What the cache may hold in all, and the largest answer it keeps (body, gzip copy and key), in bytes. */
export interface AnswerCacheBounds {
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
}

/** A Map entry, the entry object and two Buffer headers: counted with every answer. */
const ENTRY_OVERHEAD_BYTES = 300;

/**
 * A kept answer. Its gzip copy is made later, by whoever sends it compressed first: setting it
 * counts its bytes in the cache (and may push older answers out, or this one when it grew too big).
 */
class Entry implements KeptAnswer {
  #gzipped: Buffer | undefined = undefined;

  constructor(
    readonly key: string,
    readonly head: AccountHead,
    readonly body: Buffer,
    private readonly onGrow: (entry: Entry, bytes: number) => void,
  ) {}

  get gzipped(): Buffer | undefined {
    return this.#gzipped;
  }

  set gzipped(value: Buffer | undefined) {
    const before = this.#gzipped?.length ?? 0;
    this.#gzipped = value;
    this.onGrow(this, (value?.length ?? 0) - before);
  }

  /** Bytes counted for it: the key (2 a character at most), both bodies and the overhead. */
  get size(): number {
    return 2 * this.key.length + this.body.length + (this.#gzipped?.length ?? 0) + ENTRY_OVERHEAD_BYTES;
  }
}

/**
 * List answers kept by what was asked (account, resource, parameters, zone) and where the
 * account stood when they were read. Every change of an account raises its head `rev` and every
 * purge its `purgedRev`, so an answer read at the same head is the same answer: clients polling
 * for changes, or paging again, are answered without reading the records. Bounded in bytes (keys,
 * gzip copies and overhead counted); the oldest answers go first, and large ones are not kept.
 */
export class AnswerCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  readonly #grew = (entry: Entry, bytes: number): void => {
    if (this.#entries.get(entry.key) !== entry) return;
    this.#bytes += bytes;
    if (entry.size > this.bounds.maxEntryBytes) this.#drop(entry);
    else this.#makeRoom(entry);
  };

  constructor(private readonly bounds: AnswerCacheBounds) {}

  /** Bytes held now, as counted. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The kept answer, when the account still stands where it stood when it was read. */
  get(key: string, head: AccountHead): KeptAnswer | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.head.rev === head.rev && entry.head.purgedRev === head.purgedRev) return entry;
    this.#drop(entry);
    return undefined;
  }

  /** Keeps an answer (unless it is too large to); gives it back as bytes, ready to send. */
  set(key: string, head: AccountHead, text: string): KeptAnswer {
    const previous = this.#entries.get(key);
    if (previous !== undefined) this.#drop(previous);
    const entry = new Entry(key, head, Buffer.from(text, 'utf8'), this.#grew);
    if (entry.size > this.bounds.maxEntryBytes) return entry;
    this.#entries.set(key, entry);
    this.#bytes += entry.size;
    this.#makeRoom(entry);
    return entry;
  }

  /** Drops the oldest answers (never `keep`) until the cache is within its bound. */
  #makeRoom(keep: Entry): void {
    for (const entry of this.#entries.values()) {
      if (this.#bytes <= this.bounds.maxBytes) return;
      if (entry !== keep) this.#drop(entry);
    }
  }

  #drop(entry: Entry): void {
    this.#entries.delete(entry.key);
    this.#bytes -= entry.size;
  }
}
