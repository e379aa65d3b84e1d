/**
 * The OpenAPI 3.1 document of the service (`GET /openapi.json`): every /v1 operation, /healthz
 * (/livez, /readyz), the two routes that serve the document, sign-in and OAuth (oauth-paths.ts),
 * and the signed-in browser's account endpoints (account-paths.ts).
 * Schemas come from components.ts (generated from the
 * server's own zod schemas); this file says only which operation takes and answers which.
 */
import type { SyncKind } from '../../domain/sync.js';
import { KEY_MAX } from '../idempotency-key.js';
import { RECORD_RESOURCES } from '../resources.js';
import { LIMIT_MAX, WAIT_MAX_SECONDS, WAIT_MIN_SECONDS } from '../schemas/list-query.js';
import { TASK_LIMITS } from '../../domain/task.js';
import type { Retcode } from '../wire/errors.js';
import { buildComponentSchemas, componentRef, oneOrMany, resourceComponents, type JsonSchema } from './components.js';
import { ALWAYS, errorResponses, V1_ALWAYS } from './errors.js';
import { ACCOUNT_PATHS } from './account-paths.js';
import { OAUTH_PATHS } from './oauth-paths.js';

export const OPENAPI_VERSION = '3.1.0';

const JSON_CONTENT = 'application/json';

function jsonAnswer(description: string, schema: JsonSchema): JsonSchema {
  return { description, content: { [JSON_CONTENT]: { schema } } };
}

const LIST_PARAMETERS: JsonSchema[] = [
  {
    name: 'cursor',
    in: 'query',
    description:
      'The `cursor` of an earlier answer: the changes since, deleted records included. Not with `updated_after`.',
    schema: { type: 'string' },
  },
  {
    name: 'updated_after',
    in: 'query',
    description:
      'Records whose `updated` is strictly after this date-time (`YYYY-MM-DD HH:MM:SS +hhmm`, `YYYY-MM-DD` or RFC 3339), deleted ones included.',
    schema: { type: 'string' },
  },
  {
    name: 'limit',
    in: 'query',
    description: 'At most this many entries; `has_more` then says whether `cursor` continues the listing.',
    schema: { type: 'integer', minimum: 1, maximum: LIMIT_MAX },
  },
  {
    name: 'wait',
    in: 'query',
    description:
      'With `cursor`: when nothing changed since, hold the answer until something does or this many seconds pass (then the empty answer).',
    schema: { type: 'integer', minimum: WAIT_MIN_SECONDS, maximum: WAIT_MAX_SECONDS },
  },
];

const ID_PARAMETER: JsonSchema = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The record's id; it may hold `/`, `+` and `=`, percent-encoded or not.",
  schema: { type: 'string', pattern: TASK_LIMITS.idPattern.source },
};

const IDEMPOTENCY_KEY: JsonSchema = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes the POST safe to retry: a repeat with the same key and body within 24 hours gets the first answer and changes nothing.',
  schema: { type: 'string', minLength: 1, maxLength: KEY_MAX },
};

const SECURITY = [{ bearer: [] }, { oauth: [] }, { accessToken: [] }];

/** Retcodes of any GET with a query that is read strictly. */
const GET_ERRORS: readonly Retcode[] = [...V1_ALWAYS, 'E003', 'E004'];
/** Retcodes of any POST. */
const POST_ERRORS: readonly Retcode[] = [...V1_ALWAYS, 'E001', 'E003', 'E004', 'E005', 'E006'];

/** What the paths of a synced resource are made from: its line in RECORD_RESOURCES. */
interface Resource {
  readonly path: string;
  readonly kind: SyncKind;
  readonly shapes: { readonly name: Capitalize<SyncKind> };
}

function resourcePaths(resource: Resource): Record<string, JsonSchema> {
  const tag = resource.path;
  const components = resourceComponents(resource.shapes.name);
  return {
    [`/v1/${resource.path}`]: {
      get: {
        operationId: `list_${resource.path}`,
        tags: [tag],
        summary: `List or sync the account's ${resource.path}`,
        description:
          'In ascending `rev`. Without `cursor` and `updated_after`, deleted records are left out. ' +
          'When `has_more` is false, `cursor` marks everything up to now.',
        security: SECURITY,
        parameters: LIST_PARAMETERS,
        responses: {
          '200': jsonAnswer('One consistent snapshot of the listing.', componentRef(components.list)),
          ...errorResponses([...GET_ERRORS, 'E008']),
        },
      },
      post: {
        operationId: `write_${resource.path}`,
        tags: [tag],
        summary: `Create or update one ${resource.kind}, or an array of them (all or nothing)`,
        description:
          'A record whose `id` names an existing one of the account is updated: only the fields present change. ' +
          'Strings are sent raw (unescaped). With `if_rev`, a record changed since answers `E009`.',
        security: SECURITY,
        parameters: [IDEMPOTENCY_KEY],
        requestBody: { required: true, content: { [JSON_CONTENT]: { schema: oneOrMany(components.write) } } },
        responses: {
          '200': jsonAnswer('The stored record, or `{"entries": [...]}` in input order for an array.', {
            anyOf: [componentRef(components.one), componentRef(components.entries)],
          }),
          ...errorResponses([...POST_ERRORS, 'E007', 'E009']),
        },
      },
    },
    [`/v1/${resource.path}/{id}`]: {
      get: {
        operationId: `get_${resource.kind}`,
        tags: [tag],
        summary: `One ${resource.kind}, deleted ones included`,
        security: SECURITY,
        parameters: [ID_PARAMETER],
        responses: {
          '200': jsonAnswer(`The ${resource.kind}.`, componentRef(components.one)),
          // E002: a path that cannot be percent-decoded.
          ...errorResponses([...GET_ERRORS, 'E002', 'E007']),
        },
      },
    },
  };
}

const SETTINGS_PATHS: Record<string, JsonSchema> = {
  '/v1/settings': {
    get: {
      operationId: 'get_settings',
      tags: ['settings'],
      summary: "The token's account settings",
      security: SECURITY,
      responses: { '200': jsonAnswer('The settings.', componentRef('Settings')), ...errorResponses(GET_ERRORS) },
    },
    post: {
      operationId: 'update_settings',
      tags: ['settings'],
      summary: 'Change nickname, time zone (IANA), language or week start; other fields are ignored',
      security: SECURITY,
      requestBody: { required: true, content: { [JSON_CONTENT]: { schema: componentRef('SettingsWrite') } } },
      responses: { '200': jsonAnswer('The new settings.', componentRef('Settings')), ...errorResponses(POST_ERRORS) },
    },
  },
};

const WEBHOOK_PATHS: Record<string, JsonSchema> = {
  '/v1/webhooks': {
    get: {
      operationId: 'list_webhooks',
      tags: ['webhooks'],
      summary: "The account's webhooks (at most 20); secrets are never shown again",
      security: SECURITY,
      responses: { '200': jsonAnswer('The webhooks.', componentRef('WebhookList')), ...errorResponses(GET_ERRORS) },
    },
    post: {
      operationId: 'write_webhook',
      tags: ['webhooks'],
      summary:
        'Make a hook (no `id`: its secret is in this answer only), change one (`id`), or delete one (`id`, `deleted`)',
      description:
        '`url` is https (plain http only with `serve --webhook-allow-private`); `events` names events or is `["*"]`. ' +
        'Deliveries are signed as Standard Webhooks do: `webhook-id`, `webhook-timestamp`, `webhook-signature`.',
      security: SECURITY,
      requestBody: { required: true, content: { [JSON_CONTENT]: { schema: componentRef('WebhookWrite') } } },
      responses: {
        '200': jsonAnswer('The hook, or that it was deleted.', {
          anyOf: [componentRef('Webhook'), componentRef('WebhookDeleted')],
        }),
        ...errorResponses(POST_ERRORS),
      },
    },
  },
  '/v1/webhooks/{id}/deliveries': {
    get: {
      operationId: 'webhook_deliveries',
      tags: ['webhooks'],
      summary: "The hook's last 50 tries of deliveries, newest first",
      security: SECURITY,
      parameters: [{ ...ID_PARAMETER, description: "The webhook's id." }],
      responses: {
        '200': jsonAnswer('The tries.', componentRef('WebhookDeliveries')),
        ...errorResponses([...GET_ERRORS, 'E004']),
      },
    },
  },
};

const SERVICE_PATHS: Record<string, JsonSchema> = {
  '/healthz': {
    get: {
      operationId: 'health',
      tags: ['service'],
      summary: 'Whether the store answers; needs no credential',
      responses: { '200': jsonAnswer('The store answers.', componentRef('Health')), ...errorResponses(ALWAYS) },
    },
  },
  '/livez': {
    get: {
      operationId: 'liveness',
      tags: ['service'],
      summary: 'Whether the process answers at all; needs no credential',
      responses: { '200': jsonAnswer('The process answers.', componentRef('Health')), ...errorResponses(ALWAYS) },
    },
  },
  '/readyz': {
    get: {
      operationId: 'readiness',
      tags: ['service'],
      summary: 'Whether to send this process requests: E503 while it drains (SIGTERM) or its store does not answer',
      responses: {
        '200': jsonAnswer('Ready: not draining, and the store answers.', componentRef('Health')),
        ...errorResponses(ALWAYS),
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'openapi',
      tags: ['service'],
      summary: 'This document',
      responses: { '200': jsonAnswer('The OpenAPI 3.1 document.', { type: 'object' }), ...errorResponses(ALWAYS) },
    },
  },
  '/docs': {
    get: {
      operationId: 'docs',
      tags: ['service'],
      summary: 'This document as a page to read',
      responses: {
        '200': { description: 'An HTML page.', content: { 'text/html': { schema: { type: 'string' } } } },
        ...errorResponses(ALWAYS),
      },
    },
  },
};

const DESCRIPTION = `The Doit.im v1 compatible API of Task Service.

- Every string the service returns is HTML-escaped (\`&\` \`<\` \`>\` \`'\` \`"\` as entities, nothing else): unescape once before use, send raw text back.
- Date-times are written \`YYYY-MM-DD HH:MM:SS +hhmm\` in the account's time zone (DST-aware) and read in that form, as \`YYYY-MM-DD\`, or as RFC 3339.
- Sync: follow \`cursor\` while \`has_more\`; keep the last \`cursor\` and pass it later for the changes since. \`E008\`: list again from scratch.
- Retry a POST safely with an \`Idempotency-Key\`; \`E503\` comes with \`Retry-After\`.
- Every error answers \`{"retcode", "retmsg", "reqdata"}\`.`;

const RESOURCES: readonly Resource[] = Object.values(RECORD_RESOURCES);

function allPaths(): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {};
  for (const resource of RESOURCES) Object.assign(paths, resourcePaths(resource));
  return Object.assign(paths, SETTINGS_PATHS, WEBHOOK_PATHS, SERVICE_PATHS, OAUTH_PATHS, ACCOUNT_PATHS);
}

function buildDocument(): JsonSchema {
  return {
    openapi: OPENAPI_VERSION,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: 'Task Service', version: '1', description: DESCRIPTION },
    tags: [
      ...RESOURCES.map((resource) => ({ name: resource.path })),
      { name: 'settings' },
      { name: 'webhooks' },
      { name: 'service', description: 'Outside the v1 API.' },
      { name: 'sign-in', description: 'Pages for people: signing in to the web app and to approve OAuth clients.' },
      {
        name: 'oauth',
        description:
          'The OAuth 2 authorization server: how a client gets a token for a person. Errors are `{"error", "error_description"}`.',
      },
      {
        name: 'account',
        description:
          'The signed-in browser\'s own endpoints (the web app\'s token, Settings): the session cookie, never a token; every POST form-encoded with the CSRF token. Refusals are `{"error", "message"}`.',
      },
    ],
    paths: allPaths(),
    components: {
      schemas: buildComponentSchemas(),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer <token>`.' },
        oauth: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: '`Authorization: OAuth <token>`, as Doit.im clients send it.',
        },
        accessToken: {
          type: 'apiKey',
          in: 'query',
          name: 'access_token',
          description: 'Discouraged: for old OAuth2 libraries.',
        },
        clientBasic: {
          type: 'http',
          scheme: 'basic',
          description:
            'A confidential client at the token and revocation endpoints: its id and secret (or `client_secret` in the form).',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'task_session',
          description: 'The session cookie signing in sets (`/login`); the `/account` endpoints answer to it alone.',
        },
        csrf: {
          type: 'apiKey',
          in: 'header',
          name: 'X-CSRF-Token',
          description:
            'The `csrf` of `GET /account/session` (checked against the `task_csrf` cookie that answer sets), or the same in the form field `_csrf`. A cross-site `Origin` or `Sec-Fetch-Site` is refused besides.',
        },
      },
    },
  };
}

let built: JsonSchema | undefined;

/** The document, built once per process (it depends on nothing but the code): every route, `/signup` included. */
export function openApiDocument(): JsonSchema {
  built ??= buildDocument();
  return built;
}

/** The document of one server: without `/signup` when it runs without `--signup`, where it is unknown (E002). */
export function servedDocument(options: { readonly signup: boolean }): JsonSchema {
  const whole = openApiDocument();
  if (options.signup) return whole;
  const paths = whole['paths'];
  if (typeof paths !== 'object' || paths === null) return whole;
  return { ...whole, paths: Object.fromEntries(Object.entries(paths).filter(([path]) => path !== '/signup')) };
}
