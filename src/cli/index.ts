#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command, TokenSource } from '../config/command.js';
import { ConfigError } from '../config/config-error.js';
import { parseCommand } from '../config/parse.js';
import { AccountService, AdminError } from '../service/accounts.js';
import { StartupError } from '../config/startup-error.js';
import { describeStoreFailure, explained } from '../config/startup-failure.js';
import { describeLocation } from '../store/describe-location.js';
import { openMigrated, storeExists } from '../store/open.js';
import { UsernameTakenError } from '../domain/errors.js';
import { nowMicros } from '../domain/time.js';
import { storeWork } from './auth-commands.js';
import { RefusedFileError } from './refused-file.js';

/**
 * The commands that work on the store (all but serve, the terminal client's, and backup and
 * restore, which copy the store's file).
 */
type AdminCommand = Exclude<Command, { command: 'serve' | 'help' | 'version' | 'client' | 'backup' | 'restore' }>;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function tokenFrom(source: TokenSource): Promise<string> {
  if (!source.fromStdin) return source.value;
  const token = (await readStdin()).trim();
  if (token === '') throw new AdminError('no token on standard input (--token-stdin reads it from there)');
  return token;
}

/** The version in the package.json above this file (dist/src/cli or src/cli). */
function packageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest: unknown = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (typeof manifest === 'object' && manifest !== null && Reflect.get(manifest, 'name') === 'task-service') {
        const version: unknown = Reflect.get(manifest, 'version');
        return typeof version === 'string' ? version : 'unknown';
      }
    } catch {
      // No package.json here: look in the folder above.
    }
    const parent = path.dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}

/**
 * Only serve and migrate make a store: any other command run from the wrong folder (or with a
 * mistyped --data-dir) says so instead of quietly making a new empty store there. Returns
 * whether the store was there.
 */
async function requireStore(command: AdminCommand): Promise<boolean> {
  if (await storeExists(command.store)) return true;
  if (command.command === 'migrate') return false;
  // What to do first: on PostgreSQL the database is there and only lacks the tables.
  if (command.store.engine === 'postgres') {
    throw new StartupError(
      `run "task-service migrate --database-url …" first (or start serve on it once): ` +
        `${describeLocation(command.store)} has no task-service tables yet`,
    );
  }
  throw new StartupError(
    `no task-service store at ${describeLocation(command.store)}: run this from the folder serve runs in, ` +
      `or give the --data-dir serve uses (serve, or migrate, makes the store)`,
  );
}

/** The admin commands: each opens an existing store (applying migrations), does one thing, closes it. */
async function runAdmin(command: AdminCommand): Promise<void> {
  let existed = true;
  const store = await explained(
    async () => {
      existed = await requireStore(command);
      return openMigrated(command.store);
    },
    (error) => describeStoreFailure(command.store, error),
  );
  try {
    const accounts = new AccountService(store, nowMicros);
    switch (command.command) {
      case 'store':
        await storeWork(command)(store);
        return;
      case 'migrate':
        console.error(`migrations applied to ${existed ? '' : 'a new store at '}${describeLocation(command.store)}`);
        return;
      case 'user-add': {
        const password = command.passwordFromStdin ? await readStdin() : null;
        if (password === '') throw new AdminError('the password read from standard input is empty');
        const account = await accounts.addUser(command.username, password, command.timezone);
        console.error(`user ${account.username} added`);
        return;
      }
      case 'user-disable':
        await accounts.disableUser(command.username);
        console.error(`user ${command.username} disabled`);
        return;
      case 'token-create':
        // The token alone on standard output, so scripts can capture it.
        console.log(await accounts.createToken(command.username, command.scope, command.name, command.expiresInDays));
        return;
      case 'token-revoke':
        await accounts.revokeToken(await tokenFrom(command.token));
        console.error('token revoked');
        return;
      case 'export': {
        const { runExport } = await import('./portability-commands.js');
        await runExport(store, command);
        return;
      }
      case 'import': {
        const { runImport } = await import('./portability-commands.js');
        await runImport(store, command);
        return;
      }
    }
  } finally {
    await store.close();
  }
}

async function run(command: Command): Promise<void> {
  switch (command.command) {
    case 'help': {
      // Loaded only for help: the other commands do not need the texts.
      const { helpText } = await import('./help.js');
      console.log(helpText(command.topic));
      return;
    }
    case 'version':
      console.log(packageVersion());
      return;
    case 'serve': {
      // Loaded only for serve: the HTTP stack is most of the start-up time of the admin commands.
      const { serve } = await import('../main.js');
      await serve(command);
      return;
    }
    case 'client': {
      // Loaded only for the terminal client, which needs nothing of the server.
      const { runClient } = await import('./client/main.js');
      await runClient(command);
      return;
    }
    case 'backup':
    case 'restore': {
      // Not runAdmin: these copy the store's file and must not open (or migrate) it as a store.
      const { runBackupCommand } = await import('./backup-commands.js');
      await runBackupCommand(command);
      return;
    }
    default:
      await runAdmin(command);
  }
}

/** Exits with one line for a mistake the operator can fix; the whole error only with --debug. */
function fail(error: unknown, debug: boolean): never {
  if (error instanceof ConfigError || error instanceof AdminError) {
    console.error(`task-service: ${error.message}`);
    process.exit(2);
  }
  if (error instanceof RefusedFileError) {
    console.error(`task-service: ${error.message}`);
    process.exit(1);
  }
  if (error instanceof UsernameTakenError) {
    console.error(`task-service: the username ${error.username} is taken`);
    process.exit(2);
  }
  const message =
    error instanceof StartupError ? error.message : `failed: ${error instanceof Error ? error.message : String(error)}`;
  console.error(`task-service: ${message}`);
  if (debug) console.error(error);
  else if (!(error instanceof StartupError))
    console.error('task-service: run it again with --debug to see the details');
  process.exit(1);
}

let command: Command | undefined;
try {
  command = parseCommand(process.argv.slice(2), process.env);
  await run(command);
} catch (error) {
  fail(error, command !== undefined && 'debug' in command && command.debug);
}
