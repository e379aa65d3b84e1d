import { nextUpdated, type Micros } from '../domain/time.js';

/** The stamps a put gives a record: the account's next change number and `updated` time. */
export interface Stamp {
  readonly rev: number;
  readonly updated: Micros;
}

/**
 * Hands out one write transaction's stamps, counting on from the account's head: `rev + 1`, and
 * `updated = max(now, previous + 1 µs)`, so both rise strictly in commit order. A stamp is taken
 * only once its put succeeded (`commit`), so a refused put takes neither.
 */
export class Stamper {
  #last: Stamp;
  #changed = false;

  constructor(
    head: Stamp,
    private readonly now: () => Micros,
  ) {
    this.#last = head;
  }

  /** The stamp the next put gets; it counts only once `taken`. */
  peek(): Stamp {
    return { rev: this.#last.rev + 1, updated: nextUpdated(this.#last.updated, this.now()) };
  }

  taken(stamp: Stamp): void {
    this.#last = stamp;
    this.#changed = true;
  }

  /** The head to save before COMMIT, or null when nothing was written. */
  get changedHead(): Stamp | null {
    return this.#changed ? this.#last : null;
  }
}
