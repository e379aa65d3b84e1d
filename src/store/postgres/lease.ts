import type pg from 'pg';
import { isUnavailable } from './errors.js';
import type { ServerTimeouts } from './pool.js';

/** How a transaction of this service starts. */
export type TransactionStart = 'BEGIN' | 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/**
 * A connection taken from the pool for a multi-statement transaction. It listens for connection
 * errors while it is held (pg-pool only does so while the connection is idle, and an unheard
 * 'error' event would crash the process) and, on release, makes the pool throw away a connection
 * that failed instead of handing it to the next request.
 */
export class Lease {
  private broken = false;
  private released = false;
  private readonly onConnectionError = (): void => {
    this.broken = true;
  };

  private constructor(readonly client: pg.PoolClient) {
    client.on('error', this.onConnectionError);
  }

  static async take(pool: pg.Pool): Promise<Lease> {
    return new Lease(await pool.connect());
  }

  /**
   * Takes a connection and opens a transaction on it that carries its own timeouts (SET LOCAL,
   * in the same round trip as BEGIN): behind a pooler in transaction mode the server session has
   * only the role's defaults, and a transaction that holds a shared server connection for long
   * (a list stream) must still be ended by the server should this process fail to end it.
   */
  static async begin(pool: pg.Pool, start: TransactionStart, timeouts: ServerTimeouts): Promise<Lease> {
    const lease = await Lease.take(pool);
    try {
      await lease.client.query(
        `${start}; SET LOCAL statement_timeout = ${wholeMs(timeouts.statementMs)}; ` +
          `SET LOCAL idle_in_transaction_session_timeout = ${wholeMs(timeouts.idleInTransactionMs)}`,
      );
      return lease;
    } catch (error) {
      await lease.rollback(error);
      lease.release();
      throw error;
    }
  }

  /** Remembers that the connection must not be reused when `error` means it is unusable. */
  noteError(error: unknown): void {
    if (isUnavailable(error)) this.broken = true;
  }

  /** Forces the connection to be discarded, e.g. when its transaction state is unknown. */
  discard(): void {
    this.broken = true;
  }

  /**
   * Ends the transaction that `cause` interrupted so the connection can be reused; when even that
   * fails the connection is discarded. `cause` is what the caller reports, so a failure here is
   * not thrown.
   */
  async rollback(cause: unknown): Promise<void> {
    this.noteError(cause);
    if (this.broken) return;
    try {
      await this.client.query('ROLLBACK');
    } catch {
      this.broken = true;
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.client.removeListener('error', this.onConnectionError);
    this.client.release(this.broken);
  }
}

/** A setting is written into the statement (SET takes no parameters): only whole milliseconds. */
function wholeMs(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new Error(`not a timeout in whole milliseconds: ${ms}`);
  return ms;
}
