import type { AccountHead } from '../store/store.js';

/** A page of a list kept as sent, with its gzip made on first demand. */
export interface KeptAnswer {
  readonly body: string;
  gzipped: Buffer | undefined;
}

interface Entry extends KeptAnswer {
  readonly head: AccountHead;
}

/**
 * List pages kept by what was asked (account, resource, parameters, zone) and where the account
 * stood when they were read. Every change of an account raises its head `rev` and every purge its
 * `purgedRev`, so an answer read at the same head is the same answer: clients polling for
 * changes, or paging again, are answered without reading the records. Bounded in characters;
 * the oldest pages go first.
 */
export class AnswerCache {
  readonly #entries = new Map<string, Entry>();
  #chars = 0;

  constructor(private readonly maxChars: number) {}

  /** The kept answer, when the account still stands where it stood when it was read. */
  get(key: string, head: AccountHead): KeptAnswer | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.head.rev === head.rev && entry.head.purgedRev === head.purgedRev) return entry;
    this.#drop(key, entry);
    return undefined;
  }

  set(key: string, head: AccountHead, body: string): void {
    const previous = this.#entries.get(key);
    if (previous !== undefined) this.#drop(key, previous);
    if (body.length > this.maxChars) return;
    while (this.#chars + body.length > this.maxChars) {
      const oldest = this.#entries.entries().next();
      if (oldest.done === true) break;
      this.#drop(oldest.value[0], oldest.value[1]);
    }
    this.#entries.set(key, { head, body, gzipped: undefined });
    this.#chars += body.length;
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#chars -= entry.body.length;
  }
}
