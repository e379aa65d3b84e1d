import type { FlagName } from './flags.js';

/**
 * The sections of the overview (`task-service --help`), in the order shown, each with the line
 * that heads it. A command names its section.
 */
export const COMMAND_GROUPS = {
  server: 'The server:',
  accounts: 'Accounts and tokens (run where the server keeps its data, with the same --data-dir or --database-url):',
  clients: 'OAuth clients (apps that may ask a person for a token):',
  data: 'Backup and moving data (run where the server keeps its data, like the account commands):',
  terminal: 'The terminal client (run anywhere; talks to a running service over HTTP(S)):',
} as const;

export type CommandGroup = keyof typeof COMMAND_GROUPS;

export interface CommandSpec {
  /** The words that name the command: `['token', 'create']`. */
  readonly words: readonly string[];
  /** The arguments after the words, as the help shows them. */
  readonly args: readonly string[];
  /** What the command does, in one line: the overview shows it beside the command, its help under the usage. */
  readonly summary: string;
  readonly group: CommandGroup;
  /** Flags of this command besides the ones every command takes. */
  readonly flags: readonly FlagName[];
  /** Lines of explanation under the usage in the command's help. */
  readonly notes?: readonly string[];
}

const STORE_FLAGS = ['data-dir', 'database-url', 'database-pooled'] as const satisfies readonly FlagName[];

/** Flags every command takes. */
export const COMMON_FLAGS = ['debug', 'help', 'version'] as const satisfies readonly FlagName[];

/** Where the terminal client keeps what it needs between commands, as its commands' help says. */
const CLIENT_FILES_NOTE = [
  'The login and the local copy are kept in $XDG_CONFIG_HOME/task-service (else',
  '~/.config/task-service), readable by you only.',
] as const;

/**
 * Every command of `task-service`, one entry each: the overview, each command's help, the flag
 * checks and "did you mean" all read this table.
 */
export const COMMANDS = [
  {
    words: ['serve'],
    args: [],
    summary: 'run the server in the foreground (Ctrl-C stops it); makes the store on first start',
    group: 'server',
    flags: [
      'host',
      'port',
      ...STORE_FLAGS,
      'database-listen-url',
      'http',
      'tls-cert',
      'tls-key',
      'trust-proxy',
      'maintenance',
      'retention',
      'max-records',
      'log-level',
      'log-format',
      'synchronous',
      'rate-limit',
      'signup',
      'no-caldav',
      'metrics-port',
      'metrics-host',
      'drain-delay',
      'webhook-allow-private',
    ],
    notes: [
      'Stops cleanly (requests in flight are finished) on Ctrl-C (SIGINT) or SIGTERM; /readyz answers',
      '503 from then on (for --drain-delay seconds before the listener closes).',
      'A boolean variable counts as set when it is 1, true, yes or on. Flags win over the environment.',
    ],
  },
  {
    words: ['migrate'],
    args: [],
    summary: 'make the store, or apply its new migrations, then exit (serve does it too)',
    group: 'server',
    flags: [...STORE_FLAGS],
    notes: [
      'Only serve and migrate make a store; the other commands refuse to run where there is none.',
      'On PostgreSQL the database itself must exist (createdb); migrate makes the tables in it.',
    ],
  },
  {
    words: ['user', 'add'],
    args: ['<username>'],
    summary: 'add an account',
    group: 'accounts',
    flags: ['password-stdin', 'timezone', ...STORE_FLAGS],
  },
  {
    words: ['user', 'disable'],
    args: ['<username>'],
    summary: 'disable an account: its sessions end and its tokens are refused (E403)',
    group: 'accounts',
    flags: [...STORE_FLAGS],
  },
  {
    words: ['user', 'enable'],
    args: ['<username>'],
    summary: 'enable a disabled account again',
    group: 'accounts',
    flags: [...STORE_FLAGS],
  },
  {
    words: ['user', 'passwd'],
    args: ['<username>'],
    summary: "set an account's password; every session of the account ends",
    group: 'accounts',
    flags: ['password-stdin', ...STORE_FLAGS],
    notes: [
      'The password is asked for twice at the terminal (not shown as typed), unless --password-stdin;',
      'when the two differ, nothing is changed.',
    ],
  },
  {
    words: ['user', 'list'],
    args: [],
    summary: 'list the accounts: name, state, created, time zone',
    group: 'accounts',
    flags: [...STORE_FLAGS],
  },
  {
    words: ['token', 'create'],
    args: ['<username>'],
    summary: 'make an access token for an account and print it',
    group: 'accounts',
    flags: ['scope', 'name', 'expires-in', ...STORE_FLAGS],
    notes: ['The token alone on standard output, for scripts: TOKEN=$(task-service token create alice)'],
  },
  {
    words: ['token', 'revoke'],
    args: ['<token>'],
    summary: 'revoke an access token at once (or by --id, or by --name)',
    group: 'accounts',
    flags: ['token-stdin', 'id', 'name', ...STORE_FLAGS],
    notes: [
      'The token can be named three ways:',
      '  task-service token revoke <token>              the token itself',
      '  task-service token revoke --id <id>            its id, as token list shows it',
      '  task-service token revoke <username> --name <name>   every token of the user with that name',
      'Safest with --token-stdin (the token then stays out of the process list and shell history):',
      '  echo "$TOKEN" | task-service token revoke --token-stdin',
      'A token given on the command line that starts with - goes after --:',
      '  task-service token revoke -- -AbC...',
    ],
  },
  {
    words: ['token', 'list'],
    args: ['<username>'],
    summary: "list an account's tokens (never the token itself)",
    group: 'accounts',
    flags: [...STORE_FLAGS],
    notes: [
      'One token a line, tab-separated: id, name, scope, client, created, last used, expires, state.',
      'Never the token itself: only its hash is kept.',
    ],
  },
  {
    words: ['client', 'add'],
    args: ['<name>'],
    summary: "register an OAuth client; prints its id (and a confidential one's secret)",
    group: 'clients',
    flags: ['redirect-uri', 'public', 'legacy-implicit', ...STORE_FLAGS],
  },
  {
    words: ['client', 'list'],
    args: [],
    summary: 'list the OAuth clients: id, name, kind, implicit flow, redirect URIs',
    group: 'clients',
    flags: [...STORE_FLAGS],
  },
  {
    words: ['client', 'remove'],
    args: ['<client_id>'],
    summary: 'remove an OAuth client; every token it holds is revoked',
    group: 'clients',
    flags: [...STORE_FLAGS],
  },
  {
    words: ['login'],
    args: ['<url>'],
    summary: 'sign in to a service through the browser (or with --token) for the commands below',
    group: 'terminal',
    flags: ['client-id', 'scope', 'token', 'json'],
    notes: [
      'Prints an address to open in a browser, where you sign in and allow the terminal client; it',
      'comes back to this command on http://127.0.0.1:<a free port>/callback (OAuth 2, code + PKCE).',
      'The administrator registers the terminal client once, and gives you its id for --client-id:',
      '  task-service client add "Terminal" --public --redirect-uri http://127.0.0.1/callback',
      'Or paste a token (from token create, or made in the web app) instead:',
      '  task-service login <url> --token <token|->',
      ...CLIENT_FILES_NOTE,
    ],
  },
  {
    words: ['add'],
    args: ['"<quick add text>"'],
    summary: 'add a task: its title and #project @context *tag !1-!3 ^date ~next ~waiting',
    group: 'terminal',
    flags: ['remind', 'json'],
    notes: [
      'The same notation as the quick add of the web app: the words that are not tokens make the title.',
      'A date is ^today, ^tomorrow, ^mon (the next Monday; any weekday), ^YYYY-MM-DD or ^someday.',
      '--remind N adds a reminder N minutes before the start (a date is its day at 00:00).',
      '  task-service add "Call Tom #work @phone !2 ^tomorrow"',
      '  task-service add "Pay rent ^2026-12-01" --remind 1440',
    ],
  },
  {
    words: ['ls'],
    args: ['[box]'],
    summary: 'list open tasks (subtasks indented under their parent), or those of a box',
    group: 'terminal',
    flags: ['project', 'context', 'json'],
  },
  {
    words: ['done'],
    args: ['<id|title prefix>'],
    summary: 'complete the open task with this id or title prefix',
    group: 'terminal',
    flags: ['json'],
    notes: ['A repeating task moves to its next date instead.'],
  },
  {
    words: ['sync'],
    args: [],
    summary: 'bring the local copy of your tasks up to date; prints what changed',
    group: 'terminal',
    flags: ['json', 'follow'],
    notes: CLIENT_FILES_NOTE,
  },
  {
    words: ['logout'],
    args: [],
    summary: 'forget the login and the local copy; a browser sign-in is revoked at the service too',
    group: 'terminal',
    flags: [],
    notes: [
      'A pasted token (login --token) cannot be revoked from here: it keeps working until revoked',
      'with token revoke or in the web app.',
    ],
  },
  {
    words: ['export'],
    args: ['<username>'],
    summary: "write an account's settings, projects, contexts and tasks to standard output",
    group: 'data',
    flags: ['format', ...STORE_FLAGS],
    notes: ['Deleted records are left out. task-service export alice > alice.json'],
  },
  {
    words: ['import'],
    args: ['<username>', '<file>'],
    summary: "import a file into an account: our JSON, iCalendar (.ics), a Todoist backup (.zip) or project's CSV",
    group: 'data',
    flags: ['format', 'dry-run', ...STORE_FLAGS],
    notes: [
      'Ids come from the file, so importing the same file again changes nothing. Runs in',
      'transactions of 500 records; shows a progress bar on a terminal; lists what it could not map.',
    ],
  },
  {
    words: ['backup'],
    args: ['<file>'],
    summary: 'copy the SQLite store to a new file while serve keeps running (online backup)',
    group: 'data',
    flags: ['data-dir'],
    notes: [
      'Every write answered before the backup began is in it; serve keeps answering meanwhile.',
      'Shows a progress bar on a terminal. On PostgreSQL use pg_dump (docs/operations.md).',
    ],
  },
  {
    words: ['restore'],
    args: ['<file>'],
    summary: 'replace the SQLite store with a backup (stop serve first); keeps the replaced store',
    group: 'data',
    flags: ['data-dir'],
    notes: [
      'Checks the backup (integrity, schema version) before touching the store, and keeps the',
      'replaced store beside it as tasks.sqlite.replaced-<time>. Syncing clients list again once',
      '(E008). On PostgreSQL use pg_restore (docs/operations.md).',
    ],
  },
] as const satisfies readonly CommandSpec[];

/** The command's words as typed: `token create`. */
export function commandName(spec: CommandSpec): string {
  return spec.words.join(' ');
}
