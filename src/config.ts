import { parseArgs } from 'node:util';
import path from 'node:path';
import type { Scope } from './domain/account.js';

/** Where the data lives: the embedded SQLite file in a folder, or a PostgreSQL database. */
export type StoreLocation =
  | { readonly engine: 'sqlite'; readonly dataDir: string }
  | { readonly engine: 'postgres'; readonly url: string; readonly dataDir: string };

export interface ServeConfig {
  readonly command: 'serve';
  readonly store: StoreLocation;
  readonly host: string;
  readonly port: number;
  /** Plain HTTP (behind a TLS-terminating proxy); otherwise HTTPS. */
  readonly http: boolean;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | null;
  readonly maintenance: boolean;
  readonly retentionDays: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';
  readonly synchronous: 'FULL' | 'NORMAL';
  /** Requests per second allowed per token; null: no limit. */
  readonly rateLimitPerSecond: number | null;
}

export type Command =
  | ServeConfig
  | { readonly command: 'migrate'; readonly store: StoreLocation }
  | {
      readonly command: 'user-add';
      readonly store: StoreLocation;
      readonly username: string;
      readonly passwordFromStdin: boolean;
      readonly timezone: string;
    }
  | { readonly command: 'user-disable'; readonly store: StoreLocation; readonly username: string }
  | {
      readonly command: 'token-create';
      readonly store: StoreLocation;
      readonly username: string;
      readonly scope: Scope;
      readonly name: string;
      readonly expiresInDays: number | null;
    }
  | { readonly command: 'token-revoke'; readonly store: StoreLocation; readonly token: string }
  | { readonly command: 'help' };

/** A mistake in the command line or environment, shown to the operator as it is. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const USAGE = `Usage:
  task-service serve [--host H] [--port P] [--data-dir D] [--database-url URL] [--http]
                     [--tls-cert FILE --tls-key FILE] [--maintenance] [--retention DAYS]
                     [--log-level LEVEL] [--synchronous FULL|NORMAL] [--rate-limit N/s]
  task-service migrate [--data-dir D] [--database-url URL]
  task-service user add <username> [--password-stdin] [--timezone ZONE]
  task-service user disable <username>
  task-service token create <username> [--scope read|write] [--name TEXT] [--expires-in DAYS]
  task-service token revoke <token>

Every flag of serve has an environment variable: TASK_SERVICE_HOST, TASK_SERVICE_PORT,
TASK_SERVICE_DATA_DIR, TASK_SERVICE_DATABASE_URL (or DATABASE_URL), TASK_SERVICE_HTTP=1,
TASK_SERVICE_TLS_CERT, TASK_SERVICE_TLS_KEY, TASK_SERVICE_MAINTENANCE=1,
TASK_SERVICE_RETENTION, TASK_SERVICE_LOG_LEVEL, TASK_SERVICE_SYNCHRONOUS, TASK_SERVICE_RATE_LIMIT.
Flags win over the environment.`;

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  http: { type: 'boolean' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  maintenance: { type: 'boolean' },
  retention: { type: 'string' },
  'log-level': { type: 'string' },
  synchronous: { type: 'string' },
  'rate-limit': { type: 'string' },
  'password-stdin': { type: 'boolean' },
  timezone: { type: 'string' },
  scope: { type: 'string' },
  name: { type: 'string' },
  'expires-in': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;

function wholeNumber(text: string, what: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) throw new ConfigError(`${what} must be a whole number, got "${text}"`);
  const value = Number(text);
  if (value < min || value > max) throw new ConfigError(`${what} must be between ${min} and ${max}`);
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
  if (found === undefined) throw new ConfigError(`${what} must be one of ${allowed.join(', ')}`);
  return found;
}

/** Reads the command line and environment once, validated, into a frozen command. */
export function parseCommand(argv: readonly string[], env: Env): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true || positionals.length === 0) return Object.freeze({ command: 'help' });

  const dataDir = path.resolve(values['data-dir'] ?? env.TASK_SERVICE_DATA_DIR ?? 'data');
  const databaseUrl = values['database-url'] ?? env.TASK_SERVICE_DATABASE_URL ?? env.DATABASE_URL;
  let store: StoreLocation;
  if (databaseUrl === undefined || databaseUrl === '') {
    store = { engine: 'sqlite', dataDir };
  } else {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
      throw new ConfigError('--database-url must start with postgres:// or postgresql://');
    }
    store = { engine: 'postgres', url: databaseUrl, dataDir };
  }

  const [verb, sub, arg] = positionals;
  const expectArgs = (count: number, usage: string): void => {
    if (positionals.length !== count) throw new ConfigError(`usage: task-service ${usage}`);
  };

  switch (verb) {
    case 'serve': {
      expectArgs(1, 'serve [flags]');
      const certFile = values['tls-cert'] ?? env.TASK_SERVICE_TLS_CERT;
      const keyFile = values['tls-key'] ?? env.TASK_SERVICE_TLS_KEY;
      if ((certFile === undefined) !== (keyFile === undefined)) {
        throw new ConfigError('--tls-cert and --tls-key go together');
      }
      const config: ServeConfig = {
        command: 'serve',
        store,
        host: values.host ?? env.TASK_SERVICE_HOST ?? '127.0.0.1',
        port: wholeNumber(values.port ?? env.TASK_SERVICE_PORT ?? '8443', 'port', 0, 65535),
        http: values.http === true || truthy(env.TASK_SERVICE_HTTP),
        tls:
          certFile !== undefined && keyFile !== undefined
            ? { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) }
            : null,
        maintenance: values.maintenance === true || truthy(env.TASK_SERVICE_MAINTENANCE),
        retentionDays: wholeNumber(values.retention ?? env.TASK_SERVICE_RETENTION ?? '180', 'retention', 0, 36500),
        logLevel: oneOf(values['log-level'] ?? env.TASK_SERVICE_LOG_LEVEL ?? 'info', LOG_LEVELS, 'log level'),
        synchronous: oneOf(
          (values.synchronous ?? env.TASK_SERVICE_SYNCHRONOUS ?? 'FULL').toUpperCase(),
          ['FULL', 'NORMAL'] as const,
          'synchronous',
        ),
        rateLimitPerSecond: rateLimit(values['rate-limit'] ?? env.TASK_SERVICE_RATE_LIMIT),
      };
      return Object.freeze(config);
    }
    case 'migrate':
      expectArgs(1, 'migrate');
      return Object.freeze({ command: 'migrate', store });
    case 'user':
      if (sub === 'add' && arg !== undefined) {
        expectArgs(3, 'user add <username>');
        return Object.freeze({
          command: 'user-add',
          store,
          username: arg,
          passwordFromStdin: values['password-stdin'] === true,
          timezone: values.timezone ?? 'UTC',
        });
      }
      if (sub === 'disable' && arg !== undefined) {
        expectArgs(3, 'user disable <username>');
        return Object.freeze({ command: 'user-disable', store, username: arg });
      }
      throw new ConfigError('usage: task-service user add|disable <username>');
    case 'token':
      if (sub === 'create' && arg !== undefined) {
        expectArgs(3, 'token create <username>');
        const expires = values['expires-in'];
        return Object.freeze({
          command: 'token-create',
          store,
          username: arg,
          scope: oneOf(values.scope ?? 'write', ['read', 'write'] as const, '--scope'),
          name: values.name ?? '',
          expiresInDays: expires === undefined ? null : wholeNumber(expires, '--expires-in', 1, 36500),
        });
      }
      if (sub === 'revoke' && arg !== undefined) {
        expectArgs(3, 'token revoke <token>');
        return Object.freeze({ command: 'token-revoke', store, token: arg });
      }
      throw new ConfigError('usage: task-service token create <username> | token revoke <token>');
    default:
      throw new ConfigError(`unknown command "${verb ?? ''}"\n${USAGE}`);
  }
}
