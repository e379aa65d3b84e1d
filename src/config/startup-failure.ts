import type { StoreLocation } from './store-location.js';
import { StartupError } from './startup-error.js';

/** The error and its causes, outermost first. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  while (current !== undefined && current !== null && chain.length < 10) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

function property(error: unknown, name: string): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value: unknown = Reflect.get(error, name);
  return typeof value === 'string' ? value : undefined;
}

/** The first `code` (errno or SQLSTATE) in the chain of causes. */
function codeIn(error: unknown): { code: string; error: unknown } | undefined {
  for (const link of causes(error)) {
    const code = property(link, 'code');
    if (code !== undefined) return { code, error: link };
  }
  return undefined;
}

/** The database, user and host of a PostgreSQL URL, without its password. */
function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username === '' ? '' : `${decodeURIComponent(parsed.username)}@`;
    return `${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the --database-url';
  }
}

/**
 * One line for a failure to open, reach or prepare the store, naming where it looked and what
 * to do; undefined when the failure is not one an operator can act on.
 */
export function describeStoreFailure(location: StoreLocation, error: unknown): string | undefined {
  const found = codeIn(error);
  if (location.engine === 'postgres') {
    const where = `PostgreSQL ${describeDatabase(location.url)}`;
    const message = found === undefined ? '' : (property(found.error, 'message') ?? '');
    switch (found?.code) {
      case '3D000':
        return `${where}: ${message}: create it (createdb) or fix --database-url`;
      case '28000':
      case '28P01':
        return `${where}: ${message}: check the user and password in --database-url`;
      case 'ECONNREFUSED':
        return `${where}: nothing accepts connections there: is PostgreSQL running, and on that host and port?`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `${where}: the host name does not resolve: fix the host in --database-url`;
      case '08P01':
        // PgBouncer's answer to the timeouts this service sends when it connects directly.
        return message.includes('unsupported startup parameter')
          ? `${where}: ${message}: a pooler (PgBouncer) answers there: add --database-pooled`
          : undefined;
      case '42501':
        return `${where}: ${message}: the user may not create the tables; grant it rights on the database`;
      default:
        return undefined;
    }
  }
  const where = `the data folder ${location.dataDir}`;
  switch (found?.code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'SQLITE_READONLY':
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_PERM':
      return `${where} cannot be written: give the user running task-service write access to it, or choose another --data-dir`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `${where} is not a folder: choose another --data-dir`;
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return `${where} holds a tasks.sqlite that is not a task-service store (or is damaged): restore it from a backup or choose another --data-dir`;
    case 'SQLITE_FULL':
    case 'ENOSPC':
      return `${where}: the disk is full`;
    default:
      return undefined;
  }
}

/** One line for a failure to listen on the host and port, or undefined. */
export function describeListenFailure(host: string, port: number, error: unknown): string | undefined {
  switch (codeIn(error)?.code) {
    case 'EADDRINUSE':
      return `port ${port} is in use on ${host}: is another task-service running? stop it, or use --port`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${host}: it is not an address of this machine; use --host 127.0.0.1, 0.0.0.0 (every interface) or one of its addresses`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${host}: no such host name; use --host 127.0.0.1, 0.0.0.0 (every interface) or one of its addresses`;
    case 'EACCES':
      return `port ${port} needs privileges this user does not have: use --port 1024 or higher`;
    default:
      return undefined;
  }
}

/** Wraps `work` so a failure it describes becomes a StartupError with that line. */
export async function explained<T>(
  work: () => Promise<T>,
  describe: (error: unknown) => string | undefined,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const line = error instanceof StartupError ? undefined : describe(error);
    if (line === undefined) throw error;
    throw new StartupError(line, { cause: error });
  }
}
