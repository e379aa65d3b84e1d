/**
 * A newcomer's first hour at the command line (issue #10, items 1, 6 and 9): help of each command
 * with descriptions, defaults and variables, --version, "did you mean", tokens that start with
 * "-", and a token for a disabled user. The CLI runs as a real process throughout.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMANDS } from '../../src/config/commands.js';
import { FLAGS, type FlagSpec } from '../../src/config/flags.js';
import { hashToken } from '../../src/service/accounts.js';
import { openStore } from '../../src/store/open.js';
import { addUser, newAccount, storeFlags, type StoreArgs } from './support/accounts.js';
import { oauth, request } from './support/http.js';
import { expectOneLine } from './support/one-line.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  REPO_ROOT,
  runCli,
  startServe,
  type ServeProcess,
} from './support/processes.js';
import { expectError } from './support/wire.js';

/** Tokens made by earlier versions, 1 in 64 of which started with "-"; pinned here. */
const DASH_TOKENS = [
  '-IkT0kenOfAnEarlierVersion_0123456789abcdefghij',
  '--looksLikeAFlag-0123456789abcdefghijklmnopqrs',
];

describe('the command line, as a newcomer meets it', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let store: StoreArgs;
  let server: ServeProcess;

  beforeAll(async () => {
    store = { dataDir: await makeTempDir('first-cli') };
    server = await startServe({ dataDir: store.dataDir, http: true });
  });

  afterAll(async () => {
    await cleanUpProcesses();
  });

  const list = (token: string) => request(server.origin, { path: '/v1/tasks', headers: oauth(token) });

  it('a token that starts with "-" is revoked after --, or from standard input; without -- the line says how', async () => {
    await addUser(store, 'dashes');
    const opened = await openStore({ engine: 'sqlite', dataDir: store.dataDir });
    try {
      const account = await opened.findAccount('dashes');
      if (account === undefined) throw new Error('the account was not made');
      for (const token of DASH_TOKENS) {
        await opened.insertToken({
          hash: hashToken(token),
          accountId: account.id,
          scope: 'write',
          name: 'old',
          expiresAt: null,
        });
      }
    } finally {
      await opened.close();
    }
    const [first = '', second = ''] = DASH_TOKENS;
    expect((await list(first)).status).toBe(200);

    const bare = await runCli(['token', 'revoke', first, ...storeFlags(store)]);
    expectOneLine(bare, /starts with - goes after --.*--token-stdin/, 2);
    expect((await list(first)).status).toBe(200);

    const afterDashes = await runCli(['token', 'revoke', ...storeFlags(store), '--', first]);
    expect(afterDashes.code, afterDashes.stderr).toBe(0);
    expectError(await list(first), 401, 'E401');

    expect((await list(second)).status).toBe(200);
    const fromStdin = await runCli(['token', 'revoke', '--token-stdin', ...storeFlags(store)], {
      stdin: `${second}\n`,
    });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout + fromStdin.stderr).not.toContain(second);
    expectError(await list(second), 401, 'E401');

    const empty = await runCli(['token', 'revoke', '--token-stdin', ...storeFlags(store)], { stdin: '' });
    expectOneLine(empty, /no token on standard input/, 2);
    const both = await runCli(['token', 'revoke', '--token-stdin', 'abc', ...storeFlags(store)], { stdin: 'abc' });
    expectOneLine(both, /too many arguments/, 2);
  });

  it('token create for a disabled user is refused and prints no token', async () => {
    await newAccount(store, 'gone');
    expect((await runCli(['user', 'disable', 'gone', ...storeFlags(store)])).code).toBe(0);
    const refused = await runCli(['token', 'create', 'gone', ...storeFlags(store)]);
    expectOneLine(refused, /user gone is disabled/, 2);
    expect(refused.stdout).toBe('');
  });

  it("each command's --help describes its own flags with defaults and environment variables", async () => {
    for (const spec of COMMANDS) {
      const help = await runCli([...spec.words, '--help']);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain(`Usage: task-service ${spec.words.join(' ')}`);
      const own = new Set<string>(spec.flags);
      for (const [name, value] of Object.entries(FLAGS)) {
        const flag: FlagSpec = value;
        const shown = new RegExp(`^ {2}--${name}(?![\\w-])`, 'm'); // --token, not --token-stdin
        if (!own.has(name)) {
          if (!['debug', 'help', 'version'].includes(name))
            expect(help.stdout, `${spec.words.join(' ')} --${name}`).not.toMatch(shown);
          continue;
        }
        expect(help.stdout).toMatch(shown);
        expect(help.stdout).toContain(flag.description);
        if (flag.defaultText !== undefined) expect(help.stdout).toContain(`default: ${flag.defaultText}`);
        for (const variable of flag.env ?? []) expect(help.stdout).toContain(variable);
      }
    }
    const group = await runCli(['token', '--help']);
    expect(group.code, group.stderr).toBe(0);
    expect(group.stdout).toContain('Usage: task-service <command>');
    const serve = await runCli(['serve', '--help']);
    expect(serve.stdout).toMatch(/--port PORT +TCP port to listen on\n +\(default: 8443; env: TASK_SERVICE_PORT\)/);
    expect(serve.stdout).toContain('Ctrl-C');
  });

  it('the overview lists every command once, each on a line with what it does', async () => {
    const overview = await runCli(['--help']);
    expect(overview.code, overview.stderr).toBe(0);
    for (const spec of COMMANDS) {
      const lines = overview.stdout
        .split('\n')
        .filter((line) => line.startsWith(`  ${[...spec.words, ...spec.args].join(' ')} `));
      expect(lines, spec.words.join(' ')).toHaveLength(1);
      expect(lines[0]).toContain(spec.summary);
    }
  });

  it('--version prints the version of package.json', async () => {
    const manifest = z
      .object({ version: z.string() })
      .parse(JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')));
    for (const args of [['--version'], ['serve', '--version']]) {
      const version = await runCli(args);
      expect(version.code, version.stderr).toBe(0);
      expect(version.stdout).toBe(`${manifest.version}\n`);
    }
  });

  it('a near miss gets "did you mean"; a flag without its value says what value', async () => {
    expectOneLine(
      await runCli(['serve', '--prot', '8443']),
      /unknown flag --prot for task-service serve: did you mean --port\?/,
      2,
    );
    expectOneLine(await runCli(['serve', '--data-dri', 'x']), /did you mean --data-dir\?/, 2);
    expectOneLine(await runCli(['usr', 'add', 'x']), /unknown command "usr": did you mean "user"\?/, 2);
    expectOneLine(await runCli(['lgoin', 'https://x']), /unknown command "lgoin": did you mean "login"\?/, 2);
    expectOneLine(await runCli(['client', 'lsit']), /unknown command "client lsit": did you mean "client list"\?/, 2);
    expectOneLine(
      await runCli(['ls', '--projcet', 'x']),
      /unknown flag --projcet for task-service ls: did you mean --project\?/,
      2,
    );
    expectOneLine(
      await runCli(['token', 'craete', 'x']),
      /unknown command "token craete": did you mean "token create"\?/,
      2,
    );
    expectOneLine(await runCli(['token']), /"token" needs a subcommand: one of token create, token revoke/, 2);
    expectOneLine(await runCli(['serve', '--port']), /--port needs a value: --port PORT/, 2);
    expectOneLine(
      await runCli(['serve', '--port', 'eighty']),
      /--port must be a whole number from 0 to 65535, got "eighty"/,
      2,
    );
    expectOneLine(await runCli(['serve', '--http=yes']), /--http takes no value/, 2);
  });
});
