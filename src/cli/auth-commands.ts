import { parseArgs } from 'node:util';
import { ConfigError, parseCommand, type StoreLocation } from '../config.js';
import { millisFromMicros, type Micros } from '../domain/time.js';
import { AccountAdmin } from '../service/account-admin.js';
import { AdminError } from '../service/accounts.js';
import { ClientAdmin } from '../service/clients.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/store.js';
import { passwordFromStdin, passwordFromTerminal } from './read-password.js';

/**
 * The commands of sign-in and OAuth (ACCOUNTS.md): `user passwd|enable|list`, `client
 * add|list|remove`, `token list` and `token revoke --id|--name`. Output is tab-separated, one
 * record a line, never a secret except the one `client add` makes.
 */
export const AUTH_USAGE = `  task-service user passwd <username> [--password-stdin]
  task-service user enable <username>
  task-service user list
  task-service token list <username>
  task-service token revoke --id <id> | token revoke <username> --name <name>
  task-service client add <name> --redirect-uri URI [--redirect-uri URI ...] [--public] [--legacy-implicit]
  task-service client list
  task-service client remove <client_id>`;

const OPTIONS = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'redirect-uri': { type: 'string', multiple: true },
  public: { type: 'boolean' },
  'legacy-implicit': { type: 'boolean' },
  id: { type: 'string' },
  name: { type: 'string' },
} as const;

type Env = Readonly<Record<string, string | undefined>>;

/** Whether the command line is one of these commands (the others go to `parseCommand`). */
export function isAuthCommand(argv: readonly string[]): boolean {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  const [verb, sub] = words;
  if (verb === 'client') return true;
  if (verb === 'user') return sub === 'passwd' || sub === 'enable' || sub === 'list';
  if (verb === 'token')
    return (
      sub === 'list' ||
      (sub === 'revoke' &&
        argv.some((arg) => arg === '--id' || arg === '--name' || arg.startsWith('--id=') || arg.startsWith('--name=')))
    );
  return false;
}

function usage(line: string): ConfigError {
  return new ConfigError(`usage: task-service ${line}`);
}

function iso(micros: Micros | null, none: string): string {
  return micros === null ? none : new Date(millisFromMicros(micros)).toISOString();
}

/** Runs one of these commands against the store that `migrate` would open with the same flags. */
export async function runAuthCommand(argv: readonly string[], env: Env): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const storeFlags = [
    ...(values['data-dir'] === undefined ? [] : ['--data-dir', values['data-dir']]),
    ...(values['database-url'] === undefined ? [] : ['--database-url', values['database-url']]),
  ];
  const located = parseCommand(['migrate', ...storeFlags], env);
  if (located.command !== 'migrate') throw new Error('parseCommand did not read a migrate command');
  const work = plan(values, positionals);
  await withStore(located.store, work);
}

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** Checks the command line fully before the store is opened, and returns what to do with it. */
function plan(values: Values, positionals: readonly string[]): (store: Store) => Promise<void> {
  const [verb, sub, arg, extra] = positionals;
  if (extra !== undefined) throw new ConfigError(`unexpected argument "${extra}"`);
  if (verb === 'user' && sub === 'list') {
    if (arg !== undefined) throw usage('user list');
    return async (store) => {
      for (const account of await new AccountAdmin(store).listUsers()) {
        console.log(
          [
            account.username,
            account.disabled ? 'disabled' : 'enabled',
            iso(account.created, ''),
            account.timezone,
          ].join('\t'),
        );
      }
    };
  }
  if (verb === 'user' && sub === 'enable') {
    if (arg === undefined) throw usage('user enable <username>');
    return async (store) => {
      await new AccountAdmin(store).enableUser(arg);
      console.error(`user ${arg} enabled`);
    };
  }
  if (verb === 'user' && sub === 'passwd') {
    if (arg === undefined) throw usage('user passwd <username> [--password-stdin]');
    return async (store) => {
      const password =
        values['password-stdin'] === true ? await passwordFromStdin() : await passwordFromTerminal('New password: ');
      if (password === undefined)
        throw new AdminError('standard input is not a terminal: pass the password with --password-stdin');
      await new AccountAdmin(store).setPassword(arg, password);
      console.error(`password of ${arg} changed; every session of the account ended`);
    };
  }
  if (verb === 'token' && sub === 'list') {
    if (arg === undefined) throw usage('token list <username>');
    return async (store) => {
      for (const token of await new AccountAdmin(store).listTokens(arg)) {
        console.log(
          [
            token.id,
            token.name,
            token.scope,
            token.clientId ?? '-',
            iso(token.created, ''),
            iso(token.lastUsed, 'never'),
            iso(token.expiresAt, 'never'),
            token.revoked ? 'revoked' : 'live',
          ].join('\t'),
        );
      }
    };
  }
  if (verb === 'token' && sub === 'revoke') {
    const id = values.id;
    const name = values.name;
    if (id !== undefined && arg === undefined && name === undefined) {
      return async (store) => {
        await new AccountAdmin(store).revokeTokenById(id);
        console.error('token revoked');
      };
    }
    if (name !== undefined && arg !== undefined && id === undefined) {
      return async (store) => {
        const count = await new AccountAdmin(store).revokeTokensByName(arg, name);
        console.error(`${count} token${count === 1 ? '' : 's'} revoked`);
      };
    }
    throw usage('token revoke --id <id> | token revoke <username> --name <name>');
  }
  if (verb === 'client' && sub === 'add') {
    const uris = values['redirect-uri'] ?? [];
    if (arg === undefined || uris.length === 0)
      throw usage('client add <name> --redirect-uri URI [...] [--public] [--legacy-implicit]');
    return async (store) => {
      const client = await new ClientAdmin(store).add({
        name: arg,
        redirectUris: uris,
        public: values.public === true,
        legacyImplicit: values['legacy-implicit'] === true,
      });
      // The id on the first line and a confidential client's secret on the second; nothing else.
      console.log(client.id);
      if (client.secret !== null) console.log(client.secret);
    };
  }
  if (verb === 'client' && sub === 'list') {
    if (arg !== undefined) throw usage('client list');
    return async (store) => {
      for (const client of await new ClientAdmin(store).list()) {
        console.log(
          [
            client.id,
            client.name,
            client.secretHash === null ? 'public' : 'confidential',
            client.legacyImplicit ? 'legacy-implicit' : '-',
            client.redirectUris.join(' '),
          ].join('\t'),
        );
      }
    };
  }
  if (verb === 'client' && sub === 'remove') {
    if (arg === undefined) throw usage('client remove <client_id>');
    return async (store) => {
      await new ClientAdmin(store).remove(arg);
      console.error(`client ${arg} removed; its tokens are revoked`);
    };
  }
  throw new ConfigError(`usage:\n${AUTH_USAGE}`);
}

async function withStore(location: StoreLocation, work: (store: Store) => Promise<void>): Promise<void> {
  const store = await openStore(location);
  try {
    await store.migrate();
    await work(store);
  } finally {
    await store.close();
  }
}
