import type { AccountHead } from '../store/store.js';

/** A list answer kept as sent (UTF-8 bytes, so it is encoded once), its gzip made on first demand. */
export interface KeptAnswer {
  readonly body: Buffer;
  gzipped: Buffer | undefined;
}

interface Entry extends KeptAnswer {
  readonly head: AccountHead;
}

/**
 * List answers kept by what was asked (account, resource, parameters, zone) and where the
 * account stood when they were read. Every change of an account raises its head `rev` and every
 * purge its `purgedRev`, so an answer read at the same head is the same answer: clients polling
 * for changes, or paging again, are answered without reading the records. Bounded in bytes; the
 * oldest answers go first.
 */
export class AnswerCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The kept answer, when the account still stands where it stood when it was read. */
  get(key: string, head: AccountHead): KeptAnswer | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.head.rev === head.rev && entry.head.purgedRev === head.purgedRev) return entry;
    this.#drop(key, entry);
    return undefined;
  }

  /** Keeps an answer; gives it back as bytes, ready to send. */
  set(key: string, head: AccountHead, text: string): KeptAnswer {
    const previous = this.#entries.get(key);
    if (previous !== undefined) this.#drop(key, previous);
    const entry: Entry = { head, body: Buffer.from(text, 'utf8'), gzipped: undefined };
    if (entry.body.length > this.maxBytes) return entry;
    while (this.#bytes + entry.body.length > this.maxBytes) {
      const oldest = this.#entries.entries().next();
      if (oldest.done === true) break;
      this.#drop(oldest.value[0], oldest.value[1]);
    }
    this.#entries.set(key, entry);
    this.#bytes += entry.body.length;
    return entry;
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.body.length;
  }
}
