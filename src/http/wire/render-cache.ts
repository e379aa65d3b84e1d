/** What the cache may hold in all, and the largest rendering it keeps, both in bytes. */
export interface RenderCacheBounds {
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
}

/**
 * Bytes an entry is counted for: a JavaScript string takes up to 2 bytes a character (1 when all
 * its characters are Latin-1, but that is not known cheaply), and a Map entry with its two string
 * headers some 100 more.
 */
export function renderEntryBytes(key: string, text: string): number {
  return 2 * (key.length + text.length) + ENTRY_OVERHEAD_BYTES;
}

const ENTRY_OVERHEAD_BYTES = 100;

/**
 * Rendered records kept by (account, rev, zone). A record's rendering never changes while its
 * `rev` stays the same (every change takes a new rev), except for its dates when the account's
 * zone changes, so the zone is part of the key. Bounded in bytes, keys and overhead counted: the
 * oldest entries are dropped first, and a very large rendering (a task with 100 KB of notes to
 * escape) is not kept at all, so a few such records cannot take the memory of every other.
 */
export class RenderCache {
  readonly #entries = new Map<string, string>();
  #bytes = 0;

  constructor(private readonly bounds: RenderCacheBounds) {}

  /** Bytes held now, as counted by renderEntryBytes. */
  get bytes(): number {
    return this.#bytes;
  }

  render<T extends { readonly rev: number }>(
    accountId: number,
    zone: string,
    record: T,
    render: (record: T, zone: string) => string,
  ): string {
    const key = `${accountId}:${record.rev}:${zone}`;
    const kept = this.#entries.get(key);
    if (kept !== undefined) return kept;
    const text = render(record, zone);
    const size = renderEntryBytes(key, text);
    if (size > this.bounds.maxEntryBytes) return text;
    while (this.#bytes + size > this.bounds.maxBytes) {
      const oldest = this.#entries.entries().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value[0]);
      this.#bytes -= renderEntryBytes(oldest.value[0], oldest.value[1]);
    }
    this.#entries.set(key, text);
    this.#bytes += size;
    return text;
  }
}
