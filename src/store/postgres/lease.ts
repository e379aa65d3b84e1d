import type pg from 'pg';
import { isUnavailable } from './errors.js';

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
