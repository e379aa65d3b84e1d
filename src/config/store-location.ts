import path from 'node:path';
import { ConfigError } from './config-error.js';
import type { GivenFlags } from './given-flags.js';
import { setting, switchSetting, type Env } from './settings.js';

/** Where the data lives: the embedded SQLite file in a folder, or a PostgreSQL database. */
export type StoreLocation =
  | { readonly engine: 'sqlite'; readonly dataDir: string }
  | {
      readonly engine: 'postgres';
      readonly url: string;
      readonly dataDir: string;
      /** The URL is a pooler in transaction mode: connections carry no session settings. */
      readonly pooled: boolean;
      /** Where the change feed LISTENs (`serve --database-listen-url`); absent: the URL unless pooled. */
      readonly listenUrl?: string;
    };

/** The store the flags (else the environment) name: a PostgreSQL URL, else the data folder. */
export function storeLocation(given: GivenFlags, env: Env): StoreLocation {
  const dataDir = path.resolve(setting(given, 'data-dir', env) ?? 'data');
  const databaseUrl = setting(given, 'database-url', env);
  const pooled = switchSetting(given, 'database-pooled', env);
  if (databaseUrl === undefined) {
    if (pooled) throw new ConfigError('--database-pooled goes with --database-url (the pooler to connect to)');
    return { engine: 'sqlite', dataDir };
  }
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(
      '--database-url must start with postgres:// or postgresql:// (postgres://user@host/database)',
    );
  }
  const listenUrl = setting(given, 'database-listen-url', env);
  if (listenUrl !== undefined && !/^postgres(ql)?:\/\//.test(listenUrl)) {
    throw new ConfigError('--database-listen-url must start with postgres:// or postgresql://');
  }
  return { engine: 'postgres', url: databaseUrl, dataDir, pooled, ...(listenUrl === undefined ? {} : { listenUrl }) };
}
