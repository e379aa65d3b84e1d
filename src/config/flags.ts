/**
 * Every flag of `task-service`, described once: parse.ts reads the command line with this table
 * and the help is printed from it, so what the help says is what the parser accepts.
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
    description: 'folder of the SQLite store and the self-signed certificate (on PostgreSQL: the certificate only)',
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
  'database-listen-url': {
    kind: 'string',
    placeholder: 'URL',
    description:
      'where the change feed LISTENs (the PostgreSQL server itself, not a pooler); default --database-url unless --database-pooled',
    env: ['TASK_SERVICE_DATABASE_LISTEN_URL'],
  },
  'webhook-allow-private': {
    kind: 'boolean',
    description: "let webhooks target loopback, private and link-local addresses (one's own network)",
    env: ['TASK_SERVICE_WEBHOOK_ALLOW_PRIVATE'],
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
  'trust-proxy': {
    kind: 'string',
    placeholder: 'ADDRESSES',
    description:
      'read X-Forwarded-Proto, -Host and -For from these peers only: addresses or CIDR ranges, comma-separated, or loopback',
    defaultText: 'off (the headers are ignored)',
    env: ['TASK_SERVICE_TRUST_PROXY'],
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
  'log-format': {
    kind: 'string',
    placeholder: 'FORMAT',
    description: 'json (a JSON object a line, for journald and log tools) or pretty (short lines for people)',
    defaultText: 'pretty when standard output is a terminal, else json',
    env: ['TASK_SERVICE_LOG_FORMAT'],
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
  remind: {
    kind: 'string',
    placeholder: 'MINUTES',
    description: "a reminder this many minutes before the task's start (^date), 0 to 40320",
  },
  follow: {
    kind: 'boolean',
    description: 'sync: keep going, printing each change as the service tells it (Ctrl-C stops)',
  },
  format: {
    kind: 'string',
    placeholder: 'FORMAT',
    description: "json (lossless), ics (iCalendar VTODO) or todoist (import only: its backup zip, or a project's CSV)",
    defaultText: 'export: json; import: by the file name (.json, .ics, .zip or .csv)',
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
