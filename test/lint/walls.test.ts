import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The walls of eslint.walls.js, tried: each forbidden import below, linted under the repository's
 * own configuration at a file path of the layer it would sit in (the file need not exist), must
 * fail, and each allowed one must pass. A wall that stops holding fails here.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** What the walls (and the clock rule) say of `code` as the file `file`; other rules are left out. */
async function wallsSay(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  if (result === undefined) throw new Error(`nothing linted for ${file}`);
  const fatal = result.messages.filter((message) => message.fatal === true);
  if (fatal.length > 0)
    throw new Error(`${file} does not parse: ${fatal.map((message) => message.message).join('; ')}`);
  return result.messages
    .filter((message) => message.ruleId === 'walls/imports' || message.ruleId === 'no-restricted-syntax')
    .map((message) => message.message);
}

interface Attempt {
  readonly what: string;
  readonly file: string;
  readonly code: string;
  /** A piece of the refusal: the layer and what it may not import, or what to do instead. */
  readonly refusal: string;
}

const REFUSED: readonly Attempt[] = [
  {
    what: "the delivery thread's entry opening an engine past store/open.ts",
    file: 'src/delivery-main.ts',
    code: "import { openSqliteOutboxReader } from './store/sqlite/outbox-reader.js';\nexport const open = openSqliteOutboxReader;\n",
    refusal: 'delivery thread main may not import "./store/sqlite/outbox-reader.js"',
  },
  {
    what: "the delivery thread's entry using a service past its deliveries",
    file: 'src/delivery-main.ts',
    code: "import { WebhookService } from './service/webhooks.js';\nexport const hooks = WebhookService;\n",
    refusal: 'delivery thread main may not import "./service/webhooks.js"',
  },
  {
    what: 'domain/ importing config/',
    file: 'src/domain/probe.ts',
    code: "import { FLAGS } from '../config/flags.js';\nexport const flags = FLAGS;\n",
    refusal: 'domain may not import "../config/flags.js"',
  },
  {
    what: 'domain/ re-exporting config/ (export … from)',
    file: 'src/domain/probe.ts',
    code: "export { COMMANDS } from '../config/commands.js';\n",
    refusal: 'domain may not import "../config/commands.js"',
  },
  {
    what: 'a root file (main.ts) imported by service/',
    file: 'src/service/probe.ts',
    code: "import { serve } from '../main.js';\nexport const start = serve;\n",
    refusal: 'service may not import "../main.js"',
  },
  {
    what: 'a root file (main.ts) imported by http/',
    file: 'src/http/probe.ts',
    code: "export type { ServeConfig } from '../config/command.js';\nexport { serve } from '../main.js';\n",
    refusal: 'http may not import "../main.js"',
  },
  {
    what: 'a dynamic import() of the store by domain/',
    file: 'src/domain/probe.ts',
    code: "export const load = () => import('../store/open.js');\n",
    refusal: 'domain may not import "../store/open.js"',
  },
  {
    what: 'a dynamic import() of an engine by service/',
    file: 'src/service/probe.ts',
    code: "export async function open() {\n  return (await import('../store/sqlite/store.js')).openSqliteStore;\n}\n",
    refusal: 'service may not import "../store/sqlite/store.js"',
  },
  {
    what: 'a dynamic import() of a computed name',
    file: 'src/service/probe.ts',
    code: "const engine = '../store/sqlite/store.js';\nexport const load = () => import(engine);\n",
    refusal: 'cannot be checked against the walls',
  },
  {
    what: 'typeof import() of http/ in domain/',
    file: 'src/domain/probe.ts',
    code: "export type App = typeof import('../http/app.js');\n",
    refusal: 'domain may not import "../http/app.js"',
  },
  {
    what: 'typeof import() of an engine in http/',
    file: 'src/http/probe.ts',
    code: "export type Engine = typeof import('../store/postgres/store.js');\n",
    refusal: 'http may not import "../store/postgres/store.js"',
  },
  {
    what: 'cli/ importing an engine folder',
    file: 'src/cli/probe.ts',
    code: "import { openSqliteStore } from '../store/sqlite/store.js';\nexport const open = openSqliteStore;\n",
    refusal: 'cli may not import "../store/sqlite/store.js"',
  },
  {
    what: 'cli/ importing http/',
    file: 'src/cli/probe.ts',
    code: "import { buildApp } from '../http/app.js';\nexport const app = buildApp;\n",
    refusal: 'cli may not import "../http/app.js"',
  },
  {
    what: 'the terminal client importing a use case',
    file: 'src/cli/client/probe.ts',
    code: "import { TaskService } from '../../service/tasks.js';\nexport const tasks = TaskService;\n",
    refusal: 'terminal client may not import "../../service/tasks.js"',
  },
  {
    what: 'client/ importing server code (not only its types)',
    file: 'src/client/probe.ts',
    code: "import { renderTask } from '../http/wire/render.js';\nexport const render = renderTask;\n",
    refusal: 'client may not import "../http/wire/render.js"',
  },
  {
    what: 'client/ importing a node: module (the SDK runs in browsers)',
    file: 'src/client/probe.ts',
    code: "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
    refusal: 'client may not import "node:fs"',
  },
  {
    what: 'src/ importing tools/',
    file: 'src/service/probe.ts',
    code: "import { generate } from '../../tools/bench/generate.js';\nexport const make = generate;\n",
    refusal: 'service may not import "../../tools/bench/generate.js"',
  },
  {
    what: 'tools/ importing the tests',
    file: 'tools/bench/probe.ts',
    code: "import { createTestDatabase } from '../../test/support/postgres.js';\nexport const make = createTestDatabase;\n",
    refusal: 'tools may not import "../../test/support/postgres.js"',
  },
  {
    what: 'an engine folder from store/ outside store/open.ts',
    file: 'src/store/usage.ts',
    code: "import { openSqliteStore } from './sqlite/store.js';\nexport const open = openSqliteStore;\n",
    refusal: 'store may not import "./sqlite/store.js"',
  },
  {
    what: 'one engine importing the other',
    file: 'src/store/postgres/probe.ts',
    code: "import { openSqliteStore } from '../sqlite/store.js';\nexport const open = openSqliteStore;\n",
    refusal: 'PostgreSQL engine may not import "../sqlite/store.js"',
  },
  {
    what: 'service/ importing store/sqlite/ (backups past the port)',
    file: 'src/service/backups.ts',
    code: "import { backupSqliteFile } from '../store/sqlite/backup.js';\nexport const copy = backupSqliteFile;\n",
    refusal: 'service may not import "../store/sqlite/backup.js"',
  },
  {
    what: "service/ importing an engine's driver",
    file: 'src/service/probe.ts',
    code: "import Database from 'better-sqlite3';\nexport const open = Database;\n",
    refusal: 'service may not import "better-sqlite3"',
  },
  {
    what: 'service/ importing store/open.ts (a use case is given its store)',
    file: 'src/service/probe.ts',
    code: "import { openStore } from '../store/open.js';\nexport const open = openStore;\n",
    refusal: 'service may not import "../store/open.js"',
  },
  {
    what: 'http/ importing the store',
    file: 'src/http/routes/probe.ts',
    code: "import type { Store } from '../../store/store.js';\nexport type Held = Store;\n",
    refusal: 'http may not import "../../store/store.js"',
  },
  {
    what: 'dav/ importing the store',
    file: 'src/dav/probe.ts',
    code: "import type { Store } from '../store/store.js';\nexport type Held = Store;\n",
    refusal: 'dav may not import "../store/store.js"',
  },
  {
    what: 'dav/ importing http/ beyond wire/',
    file: 'src/dav/probe.ts',
    code: "import { buildApp } from '../http/app.js';\nexport const app = buildApp;\n",
    refusal: 'dav may not import "../http/app.js"',
  },
  {
    what: 'web/ importing the server',
    file: 'web/src/probe.ts',
    code: "import { DomainError } from '../../src/domain/errors.js';\nexport const problem = DomainError;\n",
    refusal: 'web may not import "../../src/domain/errors.js"',
  },
  {
    what: 'a file of a folder that has no wall',
    file: 'src/elsewhere/probe.ts',
    code: 'export const nothing = 0;\n',
    refusal: 'src/elsewhere/probe.ts is in no layer of eslint.walls.js',
  },
  {
    what: 'a route handler registered as an anonymous closure',
    file: 'src/http/routes/probe.ts',
    code: "import type { FastifyInstance } from 'fastify';\nexport function register(app: FastifyInstance): void {\n  app.get('/v1/probe', async () => 'nameless');\n}\n",
    refusal: 'name the route handler',
  },
  {
    what: 'a use case reading the wall clock',
    file: 'src/service/probe.ts',
    code: 'export const stamp = (): number => Date.now();\n',
    refusal: 'not Date.now()',
  },
  {
    what: 'a use case importing nowMicros instead of being given the Clock',
    file: 'src/service/probe.ts',
    code: "import { nowMicros } from '../domain/time.js';\nexport const stamp = nowMicros;\n",
    refusal: 'not nowMicros',
  },
];

const ALLOWED: readonly Omit<Attempt, 'refusal'>[] = [
  {
    what: 'domain/ importing domain/',
    file: 'src/domain/probe.ts',
    code: "import type { Micros } from './time.js';\nexport type At = Micros;\n",
  },
  {
    what: 'service/ importing the Store port',
    file: 'src/service/probe.ts',
    code: "import type { Store } from '../store/store.js';\nexport type Held = Store;\n",
  },
  {
    what: 'store/open.ts loading an engine on demand',
    file: 'src/store/open.ts',
    code: "export const load = () => import('./postgres/store.js');\n",
  },
  {
    what: 'an engine importing the store port and kinds/',
    file: 'src/store/sqlite/probe.ts',
    code: "import type { Store } from '../store.js';\nimport { KIND_STORAGE } from '../kinds/records.js';\nexport type Held = Store;\nexport const kinds = KIND_STORAGE;\n",
  },
  {
    what: "client/ importing the server's types, also as typeof import()",
    file: 'src/client/probe.ts',
    code: "import type { Retcode } from '../http/wire/errors.js';\nexport type Code = Retcode;\nexport type Wire = typeof import('../http/wire/errors.js');\n",
  },
  {
    what: 'dav/ importing services and http/wire/',
    file: 'src/dav/probe.ts',
    code: "import { escapeHtml } from '../http/wire/escape.js';\nimport type { TaskService } from '../service/tasks.js';\nexport const escape = escapeHtml;\nexport type Tasks = TaskService;\n",
  },
  {
    what: 'http/app.ts wiring dav/',
    file: 'src/http/app.ts',
    code: "export const loadDav = () => import('../dav/routes.js');\n",
  },
  {
    what: 'cli/ starting the server lazily',
    file: 'src/cli/index.ts',
    code: "export const load = () => import('../main.js');\n",
  },
  {
    what: 'tools/ using an engine directly',
    file: 'tools/bench/probe.ts',
    code: "import { openSqliteStore } from '../../src/store/sqlite/store.js';\nexport const open = openSqliteStore;\n",
  },
  {
    what: "the delivery thread's entry opening the outbox's reader through store/open.ts",
    file: 'src/delivery-main.ts',
    code: "import { openOutboxReader } from './store/open.js';\nexport const open = openOutboxReader;\n",
  },
  {
    what: 'web/ using the SDK',
    file: 'web/src/probe.ts',
    code: "import { TaskServiceError } from '../../src/client/index.js';\nexport const failure = TaskServiceError;\n",
  },
  {
    what: 'services.ts giving the wall clock to the use cases',
    file: 'src/service/services.ts',
    code: "import { nowMicros } from '../domain/time.js';\nexport const clock = nowMicros;\n",
  },
];

describe('the walls between the layers (eslint.walls.js)', () => {
  it.each(REFUSED)('refuses $what', async ({ file, code, refusal }) => {
    const said = await wallsSay(file, code);
    expect(
      said.some((message) => message.includes(refusal)),
      said.join('\n') || 'nothing refused',
    ).toBe(true);
  });

  it.each(ALLOWED)('allows $what', async ({ file, code }) => {
    expect(await wallsSay(file, code)).toEqual([]);
  });
});
