/**
 * Every command and flag of `task-service`, described once: config.ts parses with this table and
 * the help is printed from it, so what the help says is what the parser accepts.
 */

export interface FlagSpec {
  readonly kind: 'string' | 'boolean';
  /** What the value is, as the help shows it (`--port PORT`); string flags only. */
  readonly placeholder?: string;
  readonly description: string;
  /** The value when neither the flag nor its environment variable is given, as the help shows it. */
  readonly defaultText?: string;
  /** Environment variables that give the same setting, the first one preferred. */
  readonly env?: readonly string[];
  /** The flag may be given more than once; every value counts (`--redirect-uri A --redirect-uri B`). */
  readonly multiple?: boolean;
}

export const FLAGS = {
  host: {
    kind: 'string',
    placeholder: 'ADDRESS',
    description: 'address to listen on; 0.0.0.0 (or ::) for every network interface',
    defaultText: '127.0.0.1',
    env: ['TASK_SERVICE_HOST'],
  },
  port: {
    kind: 'string',
    placeholder: 'PORT',
    description: 'TCP port to listen on',
    defaultText: '8443',
    env: ['TASK_SERVICE_PORT'],
  },
  'data-dir': {
    kind: 'string',
    placeholder: 'DIR',
    description: 'folder of the SQLite store and the self-signed certificate',
    defaultText: './data',
    env: ['TASK_SERVICE_DATA_DIR'],
  },
  'database-url': {
    kind: 'string',
    placeholder: 'URL',
    description: 'use this PostgreSQL database (postgres://user@host/db) instead of SQLite',
    env: ['TASK_SERVICE_DATABASE_URL', 'DATABASE_URL'],
  },
  'database-pooled': {
    kind: 'boolean',
    description: '--database-url is a pooler in transaction mode, such as PgBouncer',
    env: ['TASK_SERVICE_DATABASE_POOLED'],
  },
  http: {
    kind: 'boolean',
    description: 'serve plain HTTP (behind a proxy that terminates TLS) instead of HTTPS',
    env: ['TASK_SERVICE_HTTP'],
  },
  'tls-cert': {
    kind: 'string',
    placeholder: 'FILE',
    description: 'PEM certificate (chain) to serve; goes with --tls-key',
    defaultText: 'a self-signed one made in the data folder',
    env: ['TASK_SERVICE_TLS_CERT'],
  },
  'tls-key': {
    kind: 'string',
    placeholder: 'FILE',
    description: 'PEM private key of --tls-cert',
    env: ['TASK_SERVICE_TLS_KEY'],
  },
  maintenance: {
    kind: 'boolean',
    description: 'answer every /v1 request with E502 (the service is being upgraded)',
    env: ['TASK_SERVICE_MAINTENANCE'],
  },
  retention: {
    kind: 'string',
    placeholder: 'DAYS',
    description: 'days deleted records are kept for syncing clients before they are purged',
    defaultText: '180',
    env: ['TASK_SERVICE_RETENTION'],
  },
  'max-records': {
    kind: 'string',
    placeholder: 'N',
    description: 'most records one account may keep (tasks, projects, contexts, deleted ones too); E006 past it',
    defaultText: '100000',
    env: ['TASK_SERVICE_MAX_RECORDS'],
  },
  'log-level': {
    kind: 'string',
    placeholder: 'LEVEL',
    description: 'fatal, error, warn, info, debug or silent',
    defaultText: 'info',
    env: ['TASK_SERVICE_LOG_LEVEL'],
  },
  synchronous: {
    kind: 'string',
    placeholder: 'MODE',
    description: 'SQLite durability: FULL survives power loss, NORMAL only a crash',
    defaultText: 'FULL',
    env: ['TASK_SERVICE_SYNCHRONOUS'],
  },
  'rate-limit': {
    kind: 'string',
    placeholder: 'N/s',
    description: 'requests per second allowed per token (E503 past it); off for no limit',
    defaultText: 'off',
    env: ['TASK_SERVICE_RATE_LIMIT'],
  },
  'metrics-port': {
    kind: 'string',
    placeholder: 'PORT',
    description: 'serve GET /metrics (Prometheus text) on this port, apart from the API',
    defaultText: 'off',
    env: ['TASK_SERVICE_METRICS_PORT'],
  },
  'metrics-host': {
    kind: 'string',
    placeholder: 'ADDRESS',
    description: 'address of --metrics-port; /metrics needs no credential, so keep it private',
    defaultText: '127.0.0.1',
    env: ['TASK_SERVICE_METRICS_HOST'],
  },
  'drain-delay': {
    kind: 'string',
    placeholder: 'SECONDS',
    description: 'on SIGTERM, answer 503 on /readyz this long before closing the listener',
    defaultText: '0',
    env: ['TASK_SERVICE_DRAIN_DELAY'],
  },
  'no-caldav': {
    kind: 'boolean',
    description: 'do not serve CalDAV (/dav/ and /.well-known/caldav answer 404); on by default',
    env: ['TASK_SERVICE_NO_CALDAV'],
  },
  signup: {
    kind: 'boolean',
    description: 'let anyone create an account from the sign-in page',
    env: ['TASK_SERVICE_SIGNUP'],
  },
  'password-stdin': {
    kind: 'boolean',
    description: 'read the password from standard input (for signing in to the web app)',
  },
  timezone: {
    kind: 'string',
    placeholder: 'ZONE',
    description: 'IANA time zone of the account (Europe/Berlin)',
    defaultText: 'UTC',
  },
  scope: { kind: 'string', placeholder: 'SCOPE', description: 'read (GET only) or write', defaultText: 'write' },
  name: { kind: 'string', placeholder: 'TEXT', description: 'a name to tell the token by', defaultText: 'none' },
  'expires-in': {
    kind: 'string',
    placeholder: 'DAYS',
    description: 'days until the token expires',
    defaultText: 'never',
  },
  'token-stdin': {
    kind: 'boolean',
    description: 'read the token from standard input instead of the command line',
  },
  id: { kind: 'string', placeholder: 'ID', description: 'the id of the token, as token list shows it' },
  'redirect-uri': {
    kind: 'string',
    placeholder: 'URI',
    description: 'where the client may be sent back to (exact; a loopback URI matches on any port); repeatable',
    multiple: true,
  },
  public: {
    kind: 'boolean',
    description: 'a public client (an app on a device, no secret; it must use PKCE)',
  },
  'legacy-implicit': {
    kind: 'boolean',
    description: 'allow the implicit flow (response_type=token), for the original installed clients',
  },
  token: {
    kind: 'string',
    placeholder: '<token|->',
    description: 'an access token (from token create, or made in the web app); - reads it from standard input',
  },
  'client-id': {
    kind: 'string',
    placeholder: 'ID',
    description: "the terminal client's OAuth client id, as the service's administrator registered it",
    env: ['TASK_SERVICE_CLIENT_ID'],
  },
  project: { kind: 'string', placeholder: 'P', description: 'only tasks of this project (#P or P; any case)' },
  context: { kind: 'string', placeholder: 'C', description: 'only tasks of this context (@C or C; any case)' },
  json: { kind: 'boolean', description: 'print JSON for scripts instead of lines for people' },
  format: {
    kind: 'string',
    placeholder: 'FORMAT',
    description: 'json (lossless), ics (iCalendar VTODO) or todoist (import only: its backup zip)',
    defaultText: 'export: json; import: by the file name (.json, .ics, .zip)',
  },
  'dry-run': {
    kind: 'boolean',
    description: 'print what the import would change, and change nothing',
  },
  debug: {
    kind: 'boolean',
    description: 'on a failure, print the whole error with its stack trace',
    env: ['TASK_SERVICE_DEBUG'],
  },
  help: { kind: 'boolean', description: 'print this help' },
  version: { kind: 'boolean', description: 'print the version of task-service' },
} as const satisfies Readonly<Record<string, FlagSpec>>;

export type FlagName = keyof typeof FLAGS;

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
      'http',
      'tls-cert',
      'tls-key',
      'maintenance',
      'retention',
      'max-records',
      'log-level',
      'synchronous',
      'rate-limit',
      'signup',
      'no-caldav',
      'metrics-port',
      'metrics-host',
      'drain-delay',
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
    notes: ['The password is asked for at the terminal (not shown as typed), unless --password-stdin.'],
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
    flags: ['json'],
    notes: [
      'The same notation as the quick add of the web app: the words that are not tokens make the title.',
      'A date is ^today, ^tomorrow, ^mon (the next Monday; any weekday), ^YYYY-MM-DD or ^someday.',
      '  task-service add "Call Tom #work @phone !2 ^tomorrow"',
    ],
  },
  {
    words: ['ls'],
    args: ['[box]'],
    summary: 'list open tasks, or those of a box: inbox next scheduled someday waiting completed',
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
    flags: ['json'],
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
    summary: 'import a file into an account: our JSON, iCalendar (.ics) or a Todoist backup (.zip)',
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

/** The edit distance of two short words (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The candidate nearest to `word` when it is a near miss (a typo), otherwise undefined. */
export function nearMiss(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const found = distance(word, candidate);
    if (found < bestDistance) {
      best = candidate;
      bestDistance = found;
    }
  }
  // One edit in a short word, two (a swapped pair of letters) from four letters, three from eight.
  const allowed = word.length < 4 ? 1 : word.length < 8 ? 2 : 3;
  return bestDistance <= allowed ? best : undefined;
}
