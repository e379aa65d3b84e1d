/**
 * Rendered records kept by (account, rev, zone). A record's rendering never changes while its
 * `rev` stays the same (every change takes a new rev), except for its dates when the account's
 * zone changes, so the zone is part of the key. Bounded: the oldest entries are dropped first.
 */
export class RenderCache {
  readonly #entries = new Map<string, string>();

  constructor(private readonly maxEntries: number) {}

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
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, text);
    return text;
  }
}
