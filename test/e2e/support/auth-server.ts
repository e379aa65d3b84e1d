import { expect } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { storeFlags, type StoreArgs } from './accounts.js';
import { makeTempDir, runCli, startServe, type ServeProcess } from './processes.js';

export type Engine = 'sqlite' | 'postgres';
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** A store for one engine: a data folder, and on PostgreSQL a scratch database of its own. */
export async function makeStore(engine: Engine): Promise<{ store: StoreArgs; database: TestDatabase | undefined }> {
  const dataDir = await makeTempDir(`auth-${engine}`);
  if (engine === 'sqlite') return { store: { dataDir }, database: undefined };
  const database = await createTestDatabase();
  return { store: { dataDir, databaseUrl: database.url }, database };
}

/** `serve --http` on the store; more processes on the same store share sessions and tokens. */
export function serveOn(store: StoreArgs, args: readonly string[] = []): Promise<ServeProcess> {
  return startServe({
    dataDir: store.dataDir,
    http: true,
    ...(store.databaseUrl === undefined ? {} : { databaseUrl: store.databaseUrl }),
    args,
  });
}

/** `user add <name> --password-stdin`, which must succeed. */
export async function addUserWithPassword(store: StoreArgs, username: string, password: string): Promise<void> {
  const result = await runCli(['user', 'add', username, '--password-stdin', ...storeFlags(store)], {
    stdin: `${password}\n`,
  });
  expect(result.code, result.stderr).toBe(0);
}

/** `client add`, which must succeed: the client id and, for a confidential client, its secret. */
export async function addClient(
  store: StoreArgs,
  name: string,
  redirectUris: readonly string[],
  flags: readonly string[] = [],
): Promise<{ id: string; secret: string | undefined }> {
  const result = await runCli([
    'client',
    'add',
    name,
    ...redirectUris.flatMap((uri) => ['--redirect-uri', uri]),
    ...flags,
    ...storeFlags(store),
  ]);
  expect(result.code, result.stderr).toBe(0);
  const [id = '', secret] = result.stdout.trim().split('\n');
  return { id, secret };
}

/** An admin command on the store, which must succeed. */
export async function admin(store: StoreArgs, args: readonly string[], stdin?: string): Promise<void> {
  const result = await runCli([...args, ...storeFlags(store)], stdin === undefined ? {} : { stdin });
  expect(result.code, result.stderr).toBe(0);
}
