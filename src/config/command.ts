import type { Scope } from '../domain/account.js';
import type { CommandSpec } from './commands.js';
import type { GivenFlags } from './given-flags.js';
import type { StoreLocation } from './store-location.js';

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
  /**
   * The peers (a proxy in front) whose X-Forwarded-Proto, -Host and -For are believed: addresses,
   * CIDR ranges, or the names loopback, linklocal and uniquelocal. Empty: the headers are ignored.
   */
  readonly trustProxy: readonly string[];
  readonly maintenance: boolean;
  readonly retentionDays: number;
  /** The most records one account may keep (issue #16's cap, raised by an operator who needs more). */
  readonly maxRecords: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';
  /** How log lines are written; null: pretty on a terminal, JSON otherwise (service-log.ts). */
  readonly logFormat: 'json' | 'pretty' | null;
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
  /** `--webhook-allow-private`: webhooks may target loopback, private and link-local addresses. */
  readonly webhookAllowPrivate: boolean;
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
