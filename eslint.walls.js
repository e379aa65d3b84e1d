import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The walls between the layers (docs/architecture.md), as an allow-list: each layer names what it
 * may import, of ours (`may`, paths in the repository; `types`: for types only) and of packages
 * (`packages`: package names); everything else is refused. Data flows one way, edge (http, dav) →
 * service → store; domain/ imports nothing; the engines are reached through store/open.ts only.
 *
 * A file matches the last layer whose `files` it is in: a layer of one file (store/open.ts)
 * follows the folder it lives in. A file of src/, web/, tools/, test/ or bin/ in no layer fails
 * lint, so a new folder gets its wall when it is made. Static imports, `export … from`, dynamic
 * `import()` and `typeof import()` are all checked; test/lint/walls.test.ts tries them.
 */

const ROOT = path.dirname(fileURLToPath(import.meta.url));

const NODE = 'node:*';

/**
 * The store's ports, which the use cases and the command line are given; never an engine.
 * change-feed.ts is the port of what the store tells of each commit, webhook-store.ts of the
 * webhooks' outbox and leases (issue #24).
 */
const STORE_PORTS = [
  'src/store/store.ts',
  'src/store/auth-store.ts',
  'src/store/backups.ts',
  'src/store/change-feed.ts',
  'src/store/webhook-store.ts',
];

/** What every part of the store builds on: its root files, kinds/, auth/ and the domain. */
const STORE_SHARED = ['src/store/*', 'src/store/kinds/**', 'src/store/auth/**', 'src/domain/**'];

export const LAYERS = [
  {
    name: 'domain',
    files: ['src/domain/**'],
    may: ['src/domain/**'],
    packages: [],
    why: 'domain/ is pure: types and rules, nothing else of ours and no package',
  },
  {
    name: 'config',
    files: ['src/config/**'],
    may: ['src/config/**', 'src/domain/**'],
    packages: [NODE],
    why: 'config/ reads flags and environment into values; it knows the domain and no layer that uses it',
  },
  {
    name: 'store',
    files: ['src/store/**'],
    may: [...STORE_SHARED, 'src/config/store-location.ts', 'src/config/startup-error.ts'],
    packages: [NODE],
    why: 'store/ knows records, not use cases or HTTP; an engine is reached through store/open.ts only',
  },
  {
    name: 'store kinds',
    files: ['src/store/kinds/**'],
    may: ['src/store/kinds/**', 'src/domain/**'],
    packages: [],
    why: "kinds/ describes each kind's storage for both engines: it knows no engine",
  },
  {
    name: 'SQLite engine',
    files: ['src/store/sqlite/**'],
    may: ['src/store/sqlite/**', ...STORE_SHARED],
    packages: [NODE, 'better-sqlite3'],
    why: 'an engine builds on the ports, kinds/ and auth/, and knows no other engine',
  },
  {
    name: 'PostgreSQL engine',
    files: ['src/store/postgres/**'],
    may: ['src/store/postgres/**', ...STORE_SHARED],
    packages: [NODE, 'pg'],
    why: 'an engine builds on the ports, kinds/ and auth/, and knows no other engine',
  },
  {
    name: 'store opener',
    files: ['src/store/open.ts'],
    may: [...STORE_SHARED, 'src/config/store-location.ts', 'src/store/sqlite/**', 'src/store/postgres/**'],
    packages: [NODE],
    why: 'store/open.ts is the one door to the engines',
  },
  {
    name: 'service',
    files: ['src/service/**'],
    may: ['src/service/**', 'src/domain/**', ...STORE_PORTS],
    packages: [NODE, 'zod', 'ical.js', '@node-rs/argon2'],
    why: 'service/ takes and returns domain values over the store ports: no HTTP, no command line, no engine',
  },
  {
    name: 'http',
    files: ['src/http/**'],
    may: ['src/http/**', 'src/service/**', 'src/domain/**', 'src/config/startup-error.ts', 'src/config/command.ts'],
    packages: [NODE, 'fastify', '@fastify/*', 'pino', 'pino-pretty', 'prom-client', 'selfsigned', 'zod'],
    why: 'http/ talks to the services only, never to the store',
  },
  {
    name: 'http app',
    files: ['src/http/app.ts'],
    may: ['src/http/**', 'src/service/**', 'src/domain/**', 'src/dav/**'],
    packages: [NODE, 'fastify', 'pino'],
    why: 'buildApp wires the edges (http/, dav/) over the services, never the store',
  },
  {
    name: 'dav',
    files: ['src/dav/**'],
    may: ['src/dav/**', 'src/service/**', 'src/domain/**', 'src/http/wire/**'],
    // The slots of large answers are /v1's: app.ts hands the one count to both edges.
    types: ['src/http/list-streams.ts'],
    // ical.js: CalDAV filters and expands the VTODO as served (the mapping is service/formats/vtodo.ts).
    packages: [NODE, 'fastify', 'pino', 'saxes', 'zod', 'ical.js'],
    why: "dav/ is an edge like http/: the services and http/wire/'s shared pieces, never the store",
  },
  {
    name: 'client',
    files: ['src/client/**'],
    may: ['src/client/**'],
    types: ['src/http/wire/**', 'src/http/schemas/**', 'src/domain/**'],
    packages: ['zod'],
    why: "client/ (the SDK, run in browsers too) talks to /v1 only: the server's types, never its code; no node: module",
  },
  {
    name: 'cli',
    files: ['src/cli/**'],
    may: [
      'src/cli/**',
      'src/config/**',
      'src/domain/**',
      'src/service/**',
      ...STORE_PORTS,
      'src/store/open.ts',
      'src/store/describe-location.ts',
      'src/main.ts',
    ],
    packages: [NODE],
    why: 'cli/ runs commands over the services, and opens the store through store/open.ts only',
  },
  {
    name: 'terminal client',
    files: ['src/cli/client/**'],
    may: ['src/cli/client/**', 'src/client/**', 'src/config/command.ts'],
    packages: [NODE, 'zod'],
    why: 'the terminal client is a client: the SDK, nothing of the server',
  },
  {
    name: 'main',
    files: ['src/main.ts'],
    may: [
      'src/config/**',
      'src/domain/**',
      'src/http/**',
      'src/dav/**',
      'src/service/**',
      'src/store/open.ts',
      'src/store/data-folder.ts',
      'src/store/usage.ts',
      ...STORE_PORTS,
    ],
    packages: [NODE, 'pino'],
    why: 'main.ts wires config → store (through store/open.ts) → services → app',
  },
  {
    name: 'delivery thread main',
    files: ['src/delivery-main.ts'],
    may: ['src/config/store-location.ts', 'src/domain/**', 'src/http/webhooks/**', 'src/store/open.ts', ...STORE_PORTS],
    packages: [NODE],
    why: "delivery-main.ts wires the webhook sender's delivery thread: its reader of the outbox (through store/open.ts) → its deliveries",
  },
  {
    name: 'web',
    files: ['web/src/**'],
    may: ['web/src/**', 'src/client/**'],
    packages: ['preact', '@preact/signals', 'idb'],
    why: 'web/ reaches the server through the SDK only',
  },
  {
    name: 'tools',
    files: ['tools/**'],
    may: ['tools/**', 'src/**'],
    packages: ['**'],
    why: 'tools/ (the bench) may use every layer, the engines too, and nothing of the tests',
  },
  {
    name: 'tests',
    files: ['test/**'],
    may: ['test/**', 'src/**', 'tools/**', 'web/src/**'],
    packages: ['**'],
    why: 'tests reach every layer',
  },
  {
    name: 'installed command',
    files: ['bin/**'],
    may: ['dist/src/cli/index.js'],
    packages: [],
    why: 'bin/ starts the compiled command line, nothing else',
  },
  {
    name: 'build configuration',
    files: ['*.js', '*.ts', 'web/*.ts'],
    may: ['eslint.walls.js'],
    packages: ['**'],
    why: 'the configuration of the build and its tools imports no layer',
  },
];

/** A glob as a regular expression: `**` any folders, `*` any name within one folder. */
function globPattern(glob) {
  const source = glob
    .split(/(\*\*\/?|\*)/)
    .map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      return part.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}

/** A source file and the module it becomes are the same file here: `x.js` names `x.ts`. */
function withoutExtension(file) {
  return file.replace(/\.(d\.ts|tsx?|jsx?|mjs|cjs|mts|cts)$/, '');
}

function matchesAnyFile(globs, file) {
  const bare = withoutExtension(file);
  return globs.some((glob) => globPattern(withoutExtension(glob)).test(bare));
}

/** The package an import names: `preact` of `preact/hooks`, `@fastify/cookie`, `node:fs`. */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** The literal text of an import's source, or undefined when it is computed. */
function literalSource(node) {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0]?.value.cooked;
  return undefined;
}

function allTypeOnly(specifiers, kind) {
  return specifiers.length > 0 && specifiers.every((specifier) => specifier[kind] === 'type');
}

const importsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'each layer imports only what its entry in eslint.walls.js LAYERS allows' },
    schema: [
      {
        type: 'object',
        properties: {
          layer: { type: ['string', 'null'] },
          may: { type: 'array', items: { type: 'string' } },
          types: { type: 'array', items: { type: 'string' } },
          packages: { type: 'array', items: { type: 'string' } },
          why: { type: 'string' },
        },
        required: ['layer'],
        additionalProperties: false,
      },
    ],
    messages: {
      refused: '{{layer}} may not import "{{specifier}}": {{why}} (the walls: eslint.walls.js)',
      computed: '{{layer}}: an import() of a computed name cannot be checked against the walls; name the module',
      unwalled: '{{file}} is in no layer of eslint.walls.js: give its folder an entry in LAYERS',
    },
  },
  create(context) {
    const [options] = context.options;
    const file = path.relative(ROOT, context.filename).split(path.sep).join('/');
    if (options.layer === null) {
      return { Program: (node) => context.report({ node, messageId: 'unwalled', data: { file } }) };
    }
    const { layer, may = [], types = [], packages = [], why = '' } = options;

    function allowed(specifier, typeOnly) {
      if (!specifier.startsWith('.')) {
        const name = packageOf(specifier);
        return packages.some((glob) => globPattern(glob).test(name));
      }
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      return matchesAnyFile(may, target) || (typeOnly && matchesAnyFile(types, target));
    }

    function check(node, source, typeOnly) {
      const specifier = literalSource(source);
      if (specifier === undefined) {
        context.report({ node, messageId: 'computed', data: { layer } });
        return;
      }
      if (!allowed(specifier, typeOnly))
        context.report({ node, messageId: 'refused', data: { layer, specifier, why } });
    }

    return {
      ImportDeclaration: (node) =>
        check(node, node.source, node.importKind === 'type' || allTypeOnly(node.specifiers, 'importKind')),
      ExportNamedDeclaration: (node) => {
        if (node.source !== null && node.source !== undefined)
          check(node, node.source, node.exportKind === 'type' || allTypeOnly(node.specifiers, 'exportKind'));
      },
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node, node.source, false),
      TSImportType: (node) => check(node, node.source ?? node.argument?.literal, true),
    };
  },
};

export const wallsPlugin = { rules: { imports: importsRule } };

/** The flat-config entries: first every file in no layer, then each layer, the narrower later. */
export function wallConfigs() {
  return [
    {
      files: ['src/**', 'web/**', 'tools/**', 'test/**', 'bin/**'],
      plugins: { walls: wallsPlugin },
      rules: { 'walls/imports': ['error', { layer: null }] },
    },
    ...LAYERS.map(({ name, files, may, types = [], packages, why }) => ({
      files,
      plugins: { walls: wallsPlugin },
      rules: { 'walls/imports': ['error', { layer: name, may, types, packages, why }] },
    })),
  ];
}
