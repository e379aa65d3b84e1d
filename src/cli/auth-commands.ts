/**
 * The commands of sign-in and OAuth (ACCOUNTS.md): `user passwd|enable|list`, `client
 * add|list|remove`, `token list` and `token revoke --id|--name`. config/parse.ts has checked their
 * flags and the count of their arguments. Output is tab-separated, one record a line, never a
 * secret except the one `client add` makes.
 */

import type { StoreCommand } from '../config/command.js';
import { ConfigError } from '../config/config-error.js';
import { millisFromMicros, nowMicros, type Micros } from '../domain/time.js';
import { AccountAdmin } from '../service/account-admin.js';
import { AdminError } from '../service/accounts.js';
import { ClientAdmin } from '../service/clients.js';
import type { Store } from '../store/store.js';
import { newPasswordFromTerminal, passwordFromStdin } from './read-password.js';

function iso(micros: Micros | null, none: string): string {
  return micros === null ? none : new Date(millisFromMicros(micros)).toISOString();
}

/** What the command does with the store; checked fully before the store is opened. */
export function storeWork(command: StoreCommand): (store: Store) => Promise<void> {
  const { name, flags } = command;
  const [arg = ''] = command.args;
  if (name === 'user list') {
    return async (store) => {
      for (const account of await new AccountAdmin(store, nowMicros).listUsers()) {
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
  if (name === 'user enable') {
    return async (store) => {
      await new AccountAdmin(store, nowMicros).enableUser(arg);
      console.error(`user ${arg} enabled`);
    };
  }
  if (name === 'user passwd') {
    return async (store) => {
      const password = flags.on('password-stdin') ? await passwordFromStdin() : await newPasswordFromTerminal();
      if (password === undefined)
        throw new AdminError('standard input is not a terminal: pass the password with --password-stdin');
      await new AccountAdmin(store, nowMicros).setPassword(arg, password);
      console.error(`password of ${arg} changed; every session of the account ended`);
    };
  }
  if (name === 'token list') {
    return async (store) => {
      for (const token of await new AccountAdmin(store, nowMicros).listTokens(arg)) {
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
  if (name === 'token revoke') {
    const id = flags.text('id');
    if (id !== undefined) {
      return async (store) => {
        await new AccountAdmin(store, nowMicros).revokeTokenById(id);
        console.error('token revoked');
      };
    }
    const tokenName = flags.text('name') ?? '';
    return async (store) => {
      const count = await new AccountAdmin(store, nowMicros).revokeTokensByName(arg, tokenName);
      console.error(`${count} token${count === 1 ? '' : 's'} revoked`);
    };
  }
  if (name === 'client add') {
    const uris = flags.texts('redirect-uri');
    if (uris.length === 0)
      throw new ConfigError('client add needs at least one --redirect-uri URI (see task-service client add --help)');
    return async (store) => {
      const client = await new ClientAdmin(store, nowMicros).add({
        name: arg,
        redirectUris: uris,
        public: flags.on('public'),
        legacyImplicit: flags.on('legacy-implicit'),
      });
      // The id on the first line and a confidential client's secret on the second; nothing else.
      console.log(client.id);
      if (client.secret !== null) console.log(client.secret);
    };
  }
  if (name === 'client list') {
    return async (store) => {
      for (const client of await new ClientAdmin(store, nowMicros).list()) {
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
  if (name === 'client remove') {
    return async (store) => {
      await new ClientAdmin(store, nowMicros).remove(arg);
      console.error(`client ${arg} removed; its tokens are revoked`);
    };
  }
  throw new ConfigError(`no such command: ${name}`);
}
