import { MICROS_PER_SECOND, type Clock, type Micros } from '../domain/time.js';
import type { AuthStore, TokenUse } from '../store/auth-store.js';

/** A token's last use is written at most this often per process: a write per request would cost. */
const RECORD_EVERY_MICROS = 60 * MICROS_PER_SECOND;
/**
 * Uses are written together this long after the first of a batch: never while the request that
 * used the token runs (it would take a second database connection beside the request's own).
 */
const FLUSH_AFTER_MS = 2_000;
/** Bound on remembered tokens, so many tokens cannot grow memory. */
const MAX_REMEMBERED = 10_000;

/** Notes when tokens are used, and writes the uses to the store in the background, in batches. */
export class LastUseRecorder {
  readonly #written = new Map<string, Micros>();
  #pending: TokenUse[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly auth: AuthStore,
    private readonly now: Clock,
  ) {}

  note(accountId: number, hash: string): void {
    const now = this.now();
    const last = this.#written.get(hash);
    if (last !== undefined && now - last < RECORD_EVERY_MICROS) return;
    if (this.#written.size >= MAX_REMEMBERED) this.#written.clear();
    this.#written.set(hash, now);
    this.#pending.push({ accountId, hash, at: now });
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#flush(), FLUSH_AFTER_MS);
      // A batch not yet written when the process stops is lost: "last used" is then a little older.
      this.#timer.unref();
    }
  }

  #flush(): void {
    const uses = this.#pending;
    this.#pending = [];
    this.#timer = undefined;
    // Best effort: a failed write only leaves "last used" a little older; requests go on.
    this.auth.touchTokens(uses).catch(() => undefined);
  }
}
