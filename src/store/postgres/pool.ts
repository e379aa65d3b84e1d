import pg from 'pg';

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  readonly url: string;
  /**
   * The URL is a pooler in transaction mode (PgBouncer): consecutive transactions may run on
   * different server sessions, so nothing is set per session, and a pooler refuses the timeouts
   * as startup parameters anyway. Default false.
   */
  readonly pooled?: boolean;
  /**
   * Where the change feed LISTENs, on a connection of its own: the server itself, never a pooler
   * in transaction mode. Default: `url` unless `pooled`; behind a pooler without it, the feed
   * hears only this process's commits.
   */
  readonly listenUrl?: string;
  /** Connections kept by this process; default 10. */
  readonly poolSize?: number;
  /** Longest a single statement may run before the server cancels it; default 10 s. */
  readonly statementTimeoutMs?: number;
  /** Longest wait for a connection (new or pooled) before giving up with E503; default 5 s. */
  readonly connectTimeoutMs?: number;
}

/** The server-side limits of this service's statements and transactions. */
export interface ServerTimeouts {
  readonly statementMs: number;
  readonly idleInTransactionMs: number;
}

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const IDLE_CONNECTION_CLOSE_MS = 30_000;
/**
 * A connection left inside a transaction with nothing running (a list stream whose client stopped
 * reading) is ended by the server after this long, even if this process fails to end it itself.
 * Past the list streams' own idle deadline (30 s), which ends it first.
 */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
/** Past the server's own statement timeout: only a server or network gone silent reaches it. */
const SILENT_SERVER_MARGIN_MS = 5_000;

export function serverTimeouts(options: PostgresOptions): ServerTimeouts {
  return {
    statementMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    idleInTransactionMs: IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}

export function createPool(options: PostgresOptions): pg.Pool {
  const timeouts = serverTimeouts(options);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    // Without it, a pool whose connections are all busy (or a server that never answers) makes
    // requests wait forever instead of failing fast with E503.
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: IDLE_CONNECTION_CLOSE_MS,
    // Session defaults for every statement, sent when connecting. Behind a pooler the operator
    // sets them on the role instead (docs/operations.md, "Behind PgBouncer"); the transactions
    // that hold a connection for long set their own either way (Lease.begin).
    ...(options.pooled === true
      ? {}
      : {
          statement_timeout: timeouts.statementMs,
          idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
        }),
    // A server that stops answering altogether (a silent network) cancels nothing itself.
    query_timeout: timeouts.statementMs + SILENT_SERVER_MARGIN_MS,
    // Notices a vanished server or a broken network path on idle connections.
    keepAlive: true,
    application_name: 'task-service',
  });
  // An idle pooled connection that the server drops (restart, admin kill) is reported here. The
  // pool has already discarded it and opens a new one on demand, so there is nothing to do, but
  // an 'error' event without a listener would crash the process.
  pool.on('error', () => undefined);
  return pool;
}
