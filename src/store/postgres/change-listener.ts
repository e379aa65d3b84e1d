import pg from 'pg';
import { isSyncKind } from '../kinds/kept-outcome.js';
import type { ChangeListeners } from '../change-listeners.js';

/**
 * The channel migration 11's triggers notify: "<account id> <kind>" for each commit's kinds; from
 * migration 14 to 16 also "<account id> outbox" when the outbox triggers wrote a delivery, from
 * migration 17 "<account id> <kind> outbox" instead of both (one notification per commit).
 */
export const CHANGE_CHANNEL = 'task_service_changes';
export const OUTBOX_NOTE = 'outbox';

/** Waits before connecting again after the connection was lost, growing to the last one. */
const RECONNECT_DELAYS_MS = [100, 500, 1000, 2000, 5000];
const CONNECT_TIMEOUT_MS = 5000;

/**
 * The process's ear on the database: one connection of its own, outside the pool (and outside a
 * pooler in transaction mode, which would hand the LISTEN to whichever client ran next), that
 * LISTENs to the change channel and tells each commit heard to the process's listeners. When the
 * connection is lost (a restart of the database, a broken network) it connects again, and once
 * listening again tells `resync`: commits made meanwhile were not heard, so every listener reads
 * again what it waits for (the catch-up read).
 */
export class ChangeListener {
  #started = false;
  #closed = false;
  #client: pg.Client | undefined;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly listeners: ChangeListeners,
  ) {}

  /** Connects on first use: a command that never waits for changes never opens the connection. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    void this.#connect();
  }

  /** Whether the LISTEN stands now. */
  get listening(): boolean {
    return this.#client !== undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      keepAlive: true,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'task-service change feed',
    });
    let lost = false;
    const onLost = (): void => {
      if (lost) return;
      lost = true;
      if (this.#client === client) this.#client = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      this.#reconnectLater();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => this.#heard(message.payload));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch {
      onLost();
      return;
    }
    if (lost) return;
    if (this.#closed) {
      lost = true;
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#failures = 0;
    this.listeners.tell({ type: 'resync' });
  }

  #reconnectLater(): void {
    if (this.#closed) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(this.#failures, RECONNECT_DELAYS_MS.length - 1)];
    this.#failures += 1;
    this.#retry = setTimeout(() => void this.#connect(), delay);
    this.#retry.unref();
  }

  #heard(payload: string | undefined): void {
    const [account, kind, outbox] = (payload ?? '').split(' ');
    const accountId = Number(account);
    if (!Number.isSafeInteger(accountId)) return;
    if (isSyncKind(kind)) this.listeners.tell({ type: 'changed', accountId, kinds: [kind] });
    if (kind === OUTBOX_NOTE || outbox === OUTBOX_NOTE) this.listeners.tell({ type: 'outbox', accountId });
  }
}
