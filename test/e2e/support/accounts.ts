import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { SQLITE_FILE_NAME } from '../../../src/store/open.js';
import { runCli } from './processes.js';

/** Where admin commands find the store: the data folder, and a database URL for PostgreSQL. */
export interface StoreArgs {
  readonly dataDir: string;
  readonly databaseUrl?: string;
  /** The database URL is a pooler in transaction mode (--database-pooled). */
  readonly pooled?: boolean;
}

export function storeFlags(store: StoreArgs): string[] {
  const flags = ['--data-dir', store.dataDir];
  if (store.databaseUrl !== undefined) flags.push('--database-url', store.databaseUrl);
  if (store.pooled === true) flags.push('--database-pooled');
  return flags;
}

/** A token as `token create` prints it: URL-safe base64 of at least 128 bits, alone on a line. */
export const TOKEN_OUTPUT = /^([A-Za-z0-9_-]{22,})\n$/;

/** Databases this test process made a store in with `migrate`. */
const migratedDatabases = new Set<string>();

/**
 * Makes the store with `task-service migrate` when there is none yet (a new data folder or
 * database): only serve and migrate make one, the other admin commands refuse to.
 */
export async function prepareStore(store: StoreArgs): Promise<void> {
  if (
    store.databaseUrl === undefined
      ? existsSync(path.join(store.dataDir, SQLITE_FILE_NAME))
      : migratedDatabases.has(store.databaseUrl)
  ) {
    return;
  }
  const result = await runCli(['migrate', ...storeFlags(store)]);
  expect(result.code, result.stderr).toBe(0);
  if (store.databaseUrl !== undefined) migratedDatabases.add(store.databaseUrl);
}

/** `task-service user add <username> [--timezone ZONE]`, which must succeed. */
export async function addUser(store: StoreArgs, username: string, extra: readonly string[] = []): Promise<void> {
  await prepareStore(store);
  const result = await runCli(['user', 'add', username, ...extra, ...storeFlags(store)]);
  expect(result.code, result.stderr).toBe(0);
}

/** `task-service token create <username> [...]`, which must succeed; returns the token printed. */
export async function createToken(store: StoreArgs, username: string, extra: readonly string[] = []): Promise<string> {
  const result = await runCli(['token', 'create', username, ...extra, ...storeFlags(store)]);
  expect(result.code, result.stderr).toBe(0);
  const token = TOKEN_OUTPUT.exec(result.stdout)?.[1];
  if (token === undefined)
    throw new Error(`token create printed more or less than a token: ${JSON.stringify(result.stdout)}`);
  return token;
}

/** A new user with a write token. */
export async function newAccount(store: StoreArgs, username: string, extra: readonly string[] = []): Promise<string> {
  await addUser(store, username, extra);
  return createToken(store, username);
}
