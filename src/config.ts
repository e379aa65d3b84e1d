import { homedir } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import path from 'node:path';
import {
  COMMANDS,
  COMMON_FLAGS,
  FLAGS,
  nearMiss,
  type CommandSpec,
  type FlagName,
  type FlagSpec,
} from './config-flags.js';
import type { Scope } from './domain/account.js';
import { DEFAULT_STORAGE_QUOTA } from './domain/storage-quota.js';

/** Where the data lives: the embedded SQLite file in a folder, or a PostgreSQL database. */
export type StoreLocation =
  | { readonly engine: 'sqlite'; readonly dataDir: string }
  | {
      readonly engine: 'postgres';
      readonly url: string;
      readonly dataDir: string;
      /** The URL is a pooler in transaction mode: connections carry no session settings. */
      readonly pooled: boolean;
    };

export interface ServeConfig {
  readonly command: 'serve';
  /** Print the whole error with its stack on a failure, not just one line. */
  readonly debug: boolean;
  readonly store: StoreLocation;
  readonly host: string;
  readonly port: number;
  /** Plain HTTP (behind a TLS-terminating proxy); otherwise HTTPS. */
  readonly http: boolean;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | null;
  readonly maintenance: boolean;
  readonly retentionDays: number;
  /** The most records one account may keep (issue #16's cap, raised by an operator who needs more). */
  readonly maxRecords: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';
  readonly synchronous: 'FULL' | 'NORMAL';
  /** Requests per second allowed per token; null: no limit. */
  readonly rateLimitPerSecond: number | null;
  /** Anyone may create an account from the sign-in page. */
  readonly signup: boolean;
  /** CalDAV at /dav/ (CALDAV.md); `--no-caldav` turns it off. */
  readonly caldav: boolean;
  /** Where `GET /metrics` is served; null: not at all. */
  readonly metrics: { readonly host: string; readonly port: number } | null;
  /** Seconds between SIGTERM (when /readyz turns 503) and closing the listener. */
  readonly drainDelaySeconds: number;
}

/**
 * A command checked here against its entry in COMMANDS (its flags, and its arguments' count)
 * whose work is done by the module of its kind: `store` commands by cli/auth-commands.ts on the
 * store, `client` commands by the terminal client (cli/client/).
 */
interface RoutedCommand {
  /** The command's words: `user enable`. */
  readonly name: string;
  readonly debug: boolean;
  /** The arguments after the command's words. */
  readonly args: readonly string[];
  readonly flags: GivenFlags;
}

export interface StoreCommand extends RoutedCommand {
  readonly command: 'store';
  readonly store: StoreLocation;
}

export interface ClientCommand extends RoutedCommand {
  readonly command: 'client';
  /** The terminal client's folder: `$XDG_CONFIG_HOME/task-service`, else `~/.config/task-service`. */
  readonly configDir: string;
}

/** Where `token revoke` reads the token: the command line, or standard input (`--token-stdin`). */
export type TokenSource = { readonly fromStdin: true } | { readonly fromStdin: false; readonly value: string };

export type Command =
  | ServeConfig
  | { readonly command: 'migrate'; readonly debug: boolean; readonly store: StoreLocation }
  | {
      readonly command: 'user-add';
      readonly debug: boolean;
      readonly store: StoreLocation;
      readonly username: string;
      readonly passwordFromStdin: boolean;
      readonly timezone: string;
    }
  | {
      readonly command: 'user-disable';
      readonly debug: boolean;
      readonly store: StoreLocation;
      readonly username: string;
    }
  | {
      readonly command: 'token-create';
      readonly debug: boolean;
      readonly store: StoreLocation;
      readonly username: string;
      readonly scope: Scope;
      readonly name: string;
      readonly expiresInDays: number | null;
    }
  | {
      readonly command: 'token-revoke';
      readonly debug: boolean;
      readonly store: StoreLocation;
      readonly token: TokenSource;
    }
  | StoreCommand
  | ClientCommand
  | {
      readonly command: 'export';
      readonly debug: boolean;
      readonly store: StoreLocation;
      readonly username: string;
      readonly format: 'json' | 'ics';
    }
  | {
      readonly command: 'import';
      readonly debug: boolean;
      readonly store: StoreLocation;
      readonly username: string;
      readonly file: string;
      readonly format: 'json' | 'ics' | 'todoist';
      readonly dryRun: boolean;
    }
  | { readonly command: 'backup'; readonly debug: boolean; readonly store: StoreLocation; readonly file: string }
  | { readonly command: 'restore'; readonly debug: boolean; readonly store: StoreLocation; readonly file: string }
  /** `--help`: of one command, or (topic null) of task-service. */
  | { readonly command: 'help'; readonly topic: CommandSpec | null }
  | { readonly command: 'version' };

/** A mistake in the command line or environment, shown to the operator as it is. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;

/** Every flag for node's parser, which only splits the command line into tokens here. */
const PARSE_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  ...Object.fromEntries(Object.entries(FLAGS).map(([name, flag]) => [name, { type: flag.kind }])),
  help: { type: 'boolean', short: 'h' },
};

type ArgToken = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

function wholeNumber(text: string, what: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) throw new ConfigError(`${what} must be a whole number from ${min} to ${max}, got "${text}"`);
  const value = Number(text);
  if (value < min || value > max) throw new ConfigError(`${what} must be from ${min} to ${max}, got ${text}`);
  return value;
}

/** `--rate-limit 20/s` (or a bare `20`): requests per second per token. */
function rateLimit(text: string | undefined): number | null {
  if (text === undefined || text === '' || text === 'off') return null;
  const match = /^(\d+)(?:\/s)?$/.exec(text);
  if (match?.[1] === undefined) throw new ConfigError(`--rate-limit must look like 20/s, got "${text}"`);
  return wholeNumber(match[1], '--rate-limit', 1, 1_000_000);
}

function truthy(text: string | undefined): boolean {
  return text !== undefined && /^(1|true|yes|on)$/i.test(text);
}

function oneOf<T extends string>(text: string, allowed: readonly T[], what: string): T {
  const found = allowed.find((candidate) => candidate === text);
  if (found === undefined) throw new ConfigError(`${what} must be one of ${allowed.join(', ')}, got "${text}"`);
  return found;
}

/** The flags given on the command line, checked against the command's entry in COMMANDS. */
export class GivenFlags {
  /** By name: every value of a string flag, in order; true for a boolean flag. */
  readonly #values: ReadonlyMap<FlagName, readonly string[] | true>;

  constructor(values: ReadonlyMap<FlagName, readonly string[] | true>) {
    this.#values = values;
  }

  /** Whether a boolean flag was given. */
  on(name: FlagName): boolean {
    return this.#values.get(name) === true;
  }

  /** The value of a string flag (the last one, when it was given more than once). */
  text(name: FlagName): string | undefined {
    const values = this.#values.get(name);
    return values === undefined || values === true ? undefined : values.at(-1);
  }

  /** Every value of a string flag that may be repeated, in order. */
  texts(name: FlagName): readonly string[] {
    const values = this.#values.get(name);
    return values === undefined || values === true ? [] : values;
  }
}

function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(FLAGS, name);
}

function commandName(spec: CommandSpec): string {
  return spec.words.join(' ');
}

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

/** Checks each flag given against the command and returns them by name. */
function readFlags(tokens: readonly ArgToken[], spec: CommandSpec | undefined): GivenFlags {
  const allowed: readonly FlagName[] = spec === undefined ? COMMON_FLAGS : [...spec.flags, ...COMMON_FLAGS];
  const where = spec === undefined ? 'task-service' : `task-service ${commandName(spec)}`;
  const given = new Map<FlagName, string[] | true>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const name = token.rawName === '-h' ? 'help' : token.name;
    if (!isFlagName(name) || (token.rawName.length === 2 && token.rawName !== '-h')) {
      const suggestion = nearMiss(name, allowed);
      let hint = suggestion === undefined ? ` (${where} --help lists its flags)` : `: did you mean --${suggestion}?`;
      if (spec?.flags.some((flag) => flag === 'token-stdin') === true) {
        hint = ': a token that starts with - goes after -- (token revoke -- <token>), or use --token-stdin';
      }
      throw new ConfigError(`unknown flag ${token.rawName} for ${where}${hint}`);
    }
    if (!allowed.includes(name)) {
      const owners = COMMANDS.filter((other) => other.flags.some((flag) => flag === name)).map(commandName);
      throw new ConfigError(
        `${where} does not take --${name}` + (owners.length === 0 ? '' : ` (it is a flag of ${owners.join(', ')})`),
      );
    }
    const flag: FlagSpec = FLAGS[name];
    if (flag.kind === 'boolean') {
      if (token.value !== undefined) throw new ConfigError(`--${name} takes no value (got "${token.value}")`);
      given.set(name, true);
    } else {
      if (token.value === undefined)
        throw new ConfigError(`--${name} needs a value: --${name} ${flag.placeholder ?? 'VALUE'}`);
      const earlier = given.get(name);
      given.set(name, flag.multiple === true && Array.isArray(earlier) ? [...earlier, token.value] : [token.value]);
    }
  }
  return new GivenFlags(given);
}

/** A string flag, else its first environment variable that is set, else undefined. */
function setting(given: GivenFlags, name: FlagName, env: Env): string | undefined {
  const value = given.text(name);
  if (value !== undefined) return value;
  const spec: FlagSpec = FLAGS[name];
  for (const variable of spec.env ?? []) {
    const fromEnv = env[variable];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  }
  return undefined;
}

/** A boolean flag, else its environment variable read as 1/true/yes/on. */
function switchSetting(given: GivenFlags, name: FlagName, env: Env): boolean {
  if (given.on(name)) return true;
  const spec: FlagSpec = FLAGS[name];
  return (spec.env ?? []).some((variable) => truthy(env[variable]));
}

/** The flags given, and for each flag of the command not given, its environment variable when set. */
function withEnvironment(given: GivenFlags, spec: CommandSpec, env: Env): GivenFlags {
  const values = new Map<FlagName, readonly string[] | true>();
  for (const name of [...spec.flags, ...COMMON_FLAGS]) {
    const flag: FlagSpec = FLAGS[name];
    if (flag.kind === 'boolean') {
      if (switchSetting(given, name, env)) values.set(name, true);
      continue;
    }
    const texts = given.texts(name);
    const value = setting(given, name, env);
    if (texts.length > 0) values.set(name, texts);
    else if (value !== undefined) values.set(name, [value]);
  }
  return new GivenFlags(values);
}

function storeLocation(given: GivenFlags, env: Env): StoreLocation {
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
  return { engine: 'postgres', url: databaseUrl, dataDir, pooled };
}

/** The format an import file's name suggests; --format says it otherwise. */
function formatOfFile(file: string): string {
  const extension = path.extname(file).toLowerCase();
  const byExtension: Readonly<Record<string, string>> = { '.json': 'json', '.ics': 'ics', '.zip': 'todoist' };
  const format = byExtension[extension];
  if (format === undefined) {
    throw new ConfigError(`cannot tell the format of ${file} by its name: give --format json, ics or todoist`);
  }
  return format;
}

function metricsListener(given: GivenFlags, env: Env): ServeConfig['metrics'] {
  const port = setting(given, 'metrics-port', env);
  if (port === undefined || port === 'off') return null;
  return {
    host: setting(given, 'metrics-host', env) ?? '127.0.0.1',
    port: wholeNumber(port, '--metrics-port', 0, 65535),
  };
}

function serveConfig(given: GivenFlags, env: Env, debug: boolean): ServeConfig {
  const certFile = setting(given, 'tls-cert', env);
  const keyFile = setting(given, 'tls-key', env);
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError('--tls-cert and --tls-key go together: give both, or neither for a self-signed certificate');
  }
  return {
    command: 'serve',
    debug,
    store: storeLocation(given, env),
    host: setting(given, 'host', env) ?? '127.0.0.1',
    port: wholeNumber(setting(given, 'port', env) ?? '8443', '--port', 0, 65535),
    http: switchSetting(given, 'http', env),
    tls:
      certFile !== undefined && keyFile !== undefined
        ? { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) }
        : null,
    maintenance: switchSetting(given, 'maintenance', env),
    retentionDays: wholeNumber(setting(given, 'retention', env) ?? '180', '--retention', 0, 36500),
    maxRecords: wholeNumber(
      setting(given, 'max-records', env) ?? String(DEFAULT_STORAGE_QUOTA.maxRecords),
      '--max-records',
      1,
      1_000_000_000,
    ),
    logLevel: oneOf(setting(given, 'log-level', env) ?? 'info', LOG_LEVELS, '--log-level'),
    synchronous: oneOf(
      (setting(given, 'synchronous', env) ?? 'FULL').toUpperCase(),
      ['FULL', 'NORMAL'] as const,
      '--synchronous',
    ),
    rateLimitPerSecond: rateLimit(setting(given, 'rate-limit', env)),
    signup: switchSetting(given, 'signup', env),
    caldav: !switchSetting(given, 'no-caldav', env),
    metrics: metricsListener(given, env),
    drainDelaySeconds: wholeNumber(setting(given, 'drain-delay', env) ?? '0', '--drain-delay', 0, 3600),
  };
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
