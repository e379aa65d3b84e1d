#!/usr/bin/env node
import { ConfigError, parseCommand, USAGE, type Command } from '../config.js';
import { AccountService, AdminError } from '../service/accounts.js';
import { openStore } from '../store/open.js';
import { UsernameTakenError } from '../store/store.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** The admin commands: each opens the store (applying migrations), does one thing, closes it. */
async function runAdmin(command: Exclude<Command, { command: 'serve' | 'help' }>): Promise<void> {
  const store = await openStore(command.store);
  try {
    await store.migrate();
    const accounts = new AccountService(store);
    switch (command.command) {
      case 'migrate':
        console.error('migrations applied');
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
        await accounts.revokeToken(command.token);
        console.error('token revoked');
        return;
    }
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const command = parseCommand(process.argv.slice(2), process.env);
  if (command.command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command.command === 'serve') {
    // Loaded only for serve: the HTTP stack is most of the start-up time of the admin commands.
    const { serve } = await import('../main.js');
    await serve(command);
    return;
  }
  await runAdmin(command);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof AdminError) {
    console.error(`task-service: ${error.message}`);
    process.exit(2);
  }
  if (error instanceof UsernameTakenError) {
    console.error(`task-service: the username ${error.username} is taken`);
    process.exit(2);
  }
  console.error('task-service: failed:', error);
  process.exit(1);
});
