import { IDLE_MS, ReceiverConnection } from './receiver-connection.js';
import type { CheckedTarget } from './targets.js';

interface Kept {
  readonly url: string;
  readonly address: string;
  readonly connection: ReceiverConnection;
  idle: NodeJS.Timeout;
}

/**
 * One kept connection per hook to its checked address. A hook's deliveries go one at a time, so
 * one connection is all it uses. A new URL or address (DNS is checked before each run) gets a new
 * one; a hook's connection is forgotten once it has been unused for IDLE_MS.
 */
export class ReceiverConnections {
  readonly #kept = new Map<string, Kept>();

  /** The connection for this hook's deliveries to `target`. */
  connectionFor(hookKey: string, target: CheckedTarget): ReceiverConnection {
    const url = target.url.href;
    const kept = this.#kept.get(hookKey);
    if (kept !== undefined && kept.url === url && kept.address === target.address) {
      kept.idle.refresh();
      return kept.connection;
    }
    if (kept !== undefined) this.#drop(hookKey, kept);
    const connection = new ReceiverConnection(target);
    const idle = setTimeout(() => this.#dropIfIdle(hookKey), IDLE_MS).unref();
    this.#kept.set(hookKey, { url, address: target.address, connection, idle });
    return connection;
  }

  /** Closes every connection (the sender stops). */
  closeAll(): void {
    for (const [hookKey, kept] of this.#kept) this.#drop(hookKey, kept);
  }

  /** Kept only while a delivery is under way (at most 10 s), else dropped. */
  #dropIfIdle(hookKey: string): void {
    const kept = this.#kept.get(hookKey);
    if (kept === undefined) return;
    if (kept.connection.busy) kept.idle.refresh();
    else this.#drop(hookKey, kept);
  }

  #drop(hookKey: string, kept: Kept): void {
    clearTimeout(kept.idle);
    kept.connection.close();
    this.#kept.delete(hookKey);
  }
}
