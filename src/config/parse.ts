import { homedir } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import path from 'node:path';
import type { Command, StoreCommand, TokenSource } from './command.js';
import { COMMANDS, commandName, type CommandSpec } from './commands.js';
import { ConfigError } from './config-error.js';
import { FLAGS, type FlagName } from './flags.js';
import { oneOf, wholeNumber } from './flag-values.js';
import { readFlags, type GivenFlags } from './given-flags.js';
import { nearMiss } from './near-miss.js';
import { serveConfig } from './serve.js';
import { setting, switchSetting, withEnvironment, type Env } from './settings.js';
import { storeLocation, type StoreLocation } from './store-location.js';

/** Every flag for node's parser, which only splits the command line into tokens here. */
const PARSE_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  ...Object.fromEntries(Object.entries(FLAGS).map(([name, flag]) => [name, { type: flag.kind }])),
  help: { type: 'boolean', short: 'h' },
};

/** The command the positionals name (its words first), or a ConfigError saying what is wrong. */
function findCommand(positionals: readonly string[]): CommandSpec {
  const [first = '', second] = positionals;
  const matching = COMMANDS.filter((spec) => spec.words[0] === first);
  if (matching.length === 0) {
    const suggestion = nearMiss(first, [...new Set(COMMANDS.map((spec) => spec.words[0]))]);
    throw new ConfigError(
      `unknown command "${first}"${suggestion === undefined ? '' : `: did you mean "${suggestion}"?`} ` +
        '(task-service --help lists the commands)',
    );
  }
  const found = matching.find((spec) => spec.words.length === 1 || spec.words[1] === second);
  if (found !== undefined) return found;
  const subcommands = matching.map((spec) => spec.words[1] ?? '');
  const suggestion = second === undefined ? undefined : nearMiss(second, subcommands);
  const what = second === undefined ? `"${first}" needs a subcommand` : `unknown command "${first} ${second}"`;
  throw new ConfigError(
    `${what}: ${suggestion === undefined ? `one of ${subcommands.map((sub) => `${first} ${sub}`).join(', ')}` : `did you mean "${first} ${suggestion}"?`}`,
  );
}

/** The format an import file's name suggests; --format says it otherwise. */
function formatOfFile(file: string): string {
  const extension = path.extname(file).toLowerCase();
  const byExtension: Readonly<Record<string, string>> = {
    '.json': 'json',
    '.ics': 'ics',
    '.zip': 'todoist',
    '.csv': 'todoist',
  };
  const format = byExtension[extension];
  if (format === undefined) {
    throw new ConfigError(`cannot tell the format of ${file} by its name: give --format json, ics or todoist`);
  }
  return format;
}

/**
 * How `token revoke` names the token: itself (on the command line or standard input), by its id,
 * or by a name among a user's tokens; with the count of arguments that way takes.
 */
function tokenToRevoke(given: GivenFlags): { by: 'token' | 'id' | 'name'; args: number; usage: string } {
  const ways = [given.on('token-stdin'), given.text('id') !== undefined, given.text('name') !== undefined];
  if (ways.filter(Boolean).length > 1)
    throw new ConfigError(
      'token revoke takes one of --token-stdin, --id and --name (see task-service token revoke --help)',
    );
  if (given.text('id') !== undefined) return { by: 'id', args: 0, usage: ' --id <id>' };
  if (given.text('name') !== undefined) return { by: 'name', args: 1, usage: ' <username> --name <name>' };
  if (given.on('token-stdin')) return { by: 'token', args: 0, usage: ' --token-stdin' };
  return { by: 'token', args: 1, usage: ' <token>' };
}

/** The terminal client's folder (XDG Base Directory: `$XDG_CONFIG_HOME`, else `~/.config`). */
function clientConfigDir(env: Env): string {
  const base = env['XDG_CONFIG_HOME'];
  return path.join(base !== undefined && base !== '' ? base : path.join(homedir(), '.config'), 'task-service');
}

/** Reads the command line and environment once, validated, into a frozen command. */
export function parseCommand(argv: readonly string[], env: Env): Command {
  const { tokens } = parseArgs({
    args: [...argv],
    options: PARSE_OPTIONS,
    allowPositionals: true,
    // Checked here instead (readFlags), to say which command a flag belongs to and what was meant.
    strict: false,
    tokens: true,
  });
  const positionals = tokens.flatMap((token) => (token.kind === 'positional' ? [token.value] : []));
  const askedForHelp = tokens.some(
    (token) => token.kind === 'option' && (token.name === 'help' || token.rawName === '-h'),
  );
  // `task-service token --help` names no single command: the overview lists them all.
  if (
    askedForHelp &&
    positionals.length === 1 &&
    !COMMANDS.some((spec) => spec.words.length === 1 && spec.words[0] === positionals[0])
  ) {
    return Object.freeze({ command: 'help', topic: null });
  }
  const spec = positionals.length === 0 ? undefined : findCommand(positionals);
  const given = readFlags(tokens, spec);
  if (given.on('version')) return Object.freeze({ command: 'version' });
  if (spec === undefined || given.on('help')) return Object.freeze({ command: 'help', topic: spec ?? null });
  const debug = switchSetting(given, 'debug', env);

  const args = positionals.slice(spec.words.length);
  const name = commandName(spec);
  const routed = { name, debug, args, flags: withEnvironment(given, spec, env) };
  // The terminal client says itself how each of its commands is called.
  if (spec.group === 'terminal')
    return Object.freeze({ ...routed, command: 'client', configDir: clientConfigDir(env) });
  const revokeBy = name === 'token revoke' ? tokenToRevoke(given) : undefined;
  const expected = revokeBy === undefined ? spec.args.length : revokeBy.args;
  if (args.length !== expected) {
    const usage = `task-service ${name}${revokeBy === undefined ? spec.args.map((arg) => ` ${arg}`).join('') : revokeBy.usage}`;
    throw new ConfigError(
      `${args.length < expected ? 'missing' : 'too many'} arguments: usage: ${usage} (see task-service ${name} --help)`,
    );
  }
  const [arg = ''] = args;
  const store = (): StoreLocation => storeLocation(given, env);
  const text = (flag: FlagName): string | undefined => setting(given, flag, env);
  const routedToStore = (): StoreCommand => Object.freeze({ ...routed, command: 'store', store: store() });

  switch (name) {
    case 'serve':
      return Object.freeze(serveConfig(given, env, debug));
    case 'migrate':
      return Object.freeze({ command: 'migrate', debug, store: store() });
    case 'user add':
      return Object.freeze({
        command: 'user-add',
        debug,
        store: store(),
        username: arg,
        passwordFromStdin: given.on('password-stdin'),
        timezone: text('timezone') ?? 'UTC',
      });
    case 'user disable':
      return Object.freeze({ command: 'user-disable', debug, store: store(), username: arg });
    case 'token create': {
      const expires = text('expires-in');
      return Object.freeze({
        command: 'token-create',
        debug,
        store: store(),
        username: arg,
        scope: oneOf(text('scope') ?? 'write', ['read', 'write'] as const, '--scope'),
        name: text('name') ?? '',
        expiresInDays: expires === undefined ? null : wholeNumber(expires, '--expires-in', 1, 36500),
      });
    }
    case 'token revoke': {
      if (revokeBy?.by !== 'token') return routedToStore();
      const token: TokenSource = given.on('token-stdin') ? { fromStdin: true } : { fromStdin: false, value: arg };
      return Object.freeze({ command: 'token-revoke', debug, store: store(), token });
    }
    case 'export':
      return Object.freeze({
        command: 'export',
        debug,
        store: store(),
        username: arg,
        format: oneOf(text('format') ?? 'json', ['json', 'ics'] as const, '--format'),
      });
    case 'import': {
      const file = path.resolve(args[1] ?? '');
      return Object.freeze({
        command: 'import',
        debug,
        store: store(),
        username: arg,
        file,
        format: oneOf(text('format') ?? formatOfFile(file), ['json', 'ics', 'todoist'] as const, '--format'),
        dryRun: given.on('dry-run'),
      });
    }
    case 'backup':
    case 'restore':
      return Object.freeze({ command: name, debug, store: store(), file: path.resolve(arg) });
    default:
      // The other commands on the store (accounts, tokens, OAuth clients) read their flags in cli/auth-commands.ts.
      return routedToStore();
  }
}
