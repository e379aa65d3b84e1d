/**
 * The OpenAPI paths of the signed-in browser's own endpoints (`/account/*`, docs/auth.md): the web
 * app's token for its session, and Settings' password, tokens and connected apps. Bodies are
 * generated from wire/account-shapes.ts; the refusals' statuses come from wire/account.ts.
 */
import { IMPORT_BODY_LIMIT_BYTES } from '../auth-pages/portability-routes.js';
import { ACCOUNT_ERROR_STATUS } from '../wire/account.js';
import type { AccountErrorCode } from '../wire/account-shapes.js';
import { componentRef, type AnswerName, type JsonSchema, type WriteName } from './components.js';
import { errorResponses } from './errors.js';

const FORM_CONTENT = 'application/x-www-form-urlencoded';

/** A GET answers to the session cookie alone. */
const SESSION = [{ session: [] }];
/** A POST needs the CSRF token too (the header, or the `_csrf` field of the form). */
const SESSION_AND_CSRF = [{ session: [], csrf: [] }];

const NO_STORE = {
  'Cache-Control': { description: 'Always `no-store`.', schema: { const: 'no-store' } },
};

function answer(description: string, schemaName: AnswerName): JsonSchema {
  return { description, headers: NO_STORE, content: { 'application/json': { schema: componentRef(schemaName) } } };
}

/** A refusal: the body's `error` is the code of its status. */
function refusal(code: AccountErrorCode, description: string): Record<string, JsonSchema> {
  const schema = {
    allOf: [componentRef('AccountError'), { type: 'object', properties: { error: { const: code } } }],
  };
  return {
    [String(ACCOUNT_ERROR_STATUS[code])]: {
      description: `\`${code}\`: ${description}`,
      headers: NO_STORE,
      content: { 'application/json': { schema } },
    },
  };
}

/** What every account endpoint can meet: no session, a failure of ours, the load shedder. */
const ALWAYS: Record<string, JsonSchema> = {
  ...refusal('signed_out', 'no session cookie, or one ended, idle too long, or of a disabled account.'),
  ...refusal('server_error', 'the server could not answer.'),
  ...errorResponses(['E503']),
};

/** What every POST can meet besides: a refused form, one too large. */
const POST_ALWAYS: Record<string, JsonSchema> = {
  ...ALWAYS,
  ...refusal(
    'forbidden',
    'the CSRF token is missing, wrong or stale, or the request came from another site (`Origin`, `Sec-Fetch-Site`).',
  ),
  ...refusal('too_large', 'the request body is too large.'),
};

function form(schemaName: WriteName, required: boolean): JsonSchema {
  return { required, content: { [FORM_CONTENT]: { schema: componentRef(schemaName) } } };
}

function idParameter(description: string): JsonSchema {
  return { name: 'id', in: 'path', required: true, description, schema: { type: 'string' } };
}

function revoked(description: string): JsonSchema {
  return { description, headers: NO_STORE };
}

/** A GET: the session cookie alone, and the refusals any request can meet. */
function readOperation(operationId: string, summary: string, answers: Record<string, JsonSchema>): JsonSchema {
  return { operationId, tags: ['account'], summary, security: SESSION, responses: { ...answers, ...ALWAYS } };
}

/** A POST: the session cookie and the CSRF token, and the refusals any form can meet. */
function formOperation(operation: JsonSchema, answers: Record<string, JsonSchema>): JsonSchema {
  return { tags: ['account'], security: SESSION_AND_CSRF, ...operation, responses: { ...POST_ALWAYS, ...answers } };
}

function queryParameter(name: string, required: boolean, values: readonly string[], description: string): JsonSchema {
  return { name, in: 'query', required, description, schema: { type: 'string', enum: values } };
}

const IMPORT_LIMIT_MIB = IMPORT_BODY_LIMIT_BYTES / (1024 * 1024);

export const ACCOUNT_PATHS: Record<string, JsonSchema> = {
  '/account/session': {
    get: readOperation('account_session', 'Who is signed in, and the CSRF token for the POSTs', {
      '200': answer(
        'The account and a CSRF token (it also sets the `task_csrf` cookie the token is checked against).',
        'AccountSession',
      ),
    }),
  },
  '/account/app-token': {
    post: formOperation(
      {
        operationId: 'account_app_token',
        summary: "A token for the web app, bound to this browser's session",
        requestBody: form('AccountCsrfForm', false),
      },
      { '200': answer('A new token; sign-out (and a new password) revoke it.', 'AccountAppToken') },
    ),
  },
  '/account/password': {
    post: formOperation(
      {
        operationId: 'account_password',
        summary: 'Change the password: this browser gets a new session, every other session ends',
        requestBody: form('AccountPasswordForm', true),
      },
      {
        '200': {
          ...answer("A token for the new session, in the shape of `/account/app-token`'s.", 'AccountAppToken'),
          headers: {
            ...NO_STORE,
            'Set-Cookie': { description: 'The new session cookie (`task_session`).', schema: { type: 'string' } },
          },
        },
        ...refusal('invalid', 'the current password is wrong, or the new one is refused (the message says why).'),
      },
    ),
  },
  '/account/tokens': {
    get: readOperation('account_tokens', "The person's own live tokens", {
      '200': answer('The tokens, never their secrets.', 'AccountTokenList'),
    }),
    post: formOperation(
      {
        operationId: 'account_make_token',
        summary: 'Make a personal token',
        requestBody: form('AccountTokenForm', true),
      },
      {
        '201': answer('The token, shown this once, and its entry in the list.', 'AccountMadeToken'),
        ...refusal('invalid', 'a bad name, scope or expiry (the message says which).'),
      },
    ),
  },
  '/account/tokens/{id}/revoke': {
    post: formOperation(
      {
        operationId: 'account_revoke_token',
        summary: 'Revoke one of the personal tokens',
        parameters: [idParameter('The `id` of the token in the list.')],
        requestBody: form('AccountCsrfForm', false),
      },
      {
        '204': revoked('Revoked: it stops working on the next request.'),
        ...refusal('not_found', 'the account has no live token with this id.'),
      },
    ),
  },
  '/account/apps': {
    get: readOperation('account_apps', 'The OAuth clients the account allowed', {
      '200': answer('The clients, with the latest use of their tokens.', 'AccountAppList'),
    }),
  },
  '/account/apps/{id}/revoke': {
    post: formOperation(
      {
        operationId: 'account_revoke_app',
        summary: 'Disconnect an app: revoke every token the account gave it, and forget the consent',
        parameters: [idParameter('The `client_id` of the app.')],
        requestBody: form('AccountCsrfForm', false),
      },
      {
        '204': revoked('Disconnected: the app must ask again.'),
        ...refusal('not_found', 'the account never allowed this app.'),
      },
    ),
  },
  '/account/export': {
    get: {
      ...readOperation('account_export', "Download the account's data: settings, projects, contexts, live tasks", {
        '200': {
          description: 'The file, as `task-service export` writes it: a download named by the day.',
          headers: {
            ...NO_STORE,
            'Content-Disposition': {
              description: '`attachment; filename="task-service-YYYY-MM-DD.json"` (or `.ics`).',
              schema: { type: 'string' },
            },
          },
          content: {
            'application/json': { schema: componentRef('AccountExport') },
            'text/calendar': { schema: { type: 'string', description: 'One VCALENDAR of VTODOs.' } },
          },
        },
        ...refusal('invalid', 'an unknown format.'),
      }),
      parameters: [
        queryParameter('format', false, ['json', 'ics'], 'The lossless JSON (without it) or iCalendar VTODOs.'),
      ],
    },
  },
  '/account/import': {
    post: formOperation(
      {
        operationId: 'account_import',
        summary: 'Import a file into the account, or with `dry_run=1` say what it would change',
        description:
          'Idempotent: ids come from the file, and records that would not change are not written, so importing the same file again changes nothing. ' +
          'Applied in transactions of at most 500 records; a refused record stops the import there (the batches before it stay imported).',
        parameters: [
          queryParameter(
            'format',
            true,
            ['json', 'ics', 'todoist'],
            "The file's format: our JSON export, iCalendar VTODOs, or Todoist's backup zip or one project's CSV export.",
          ),
          {
            name: 'name',
            in: 'query',
            required: false,
            description: "The file's name (its last part): a Todoist project's CSV export is named for the project.",
            schema: { type: 'string', maxLength: 255 },
          },
          queryParameter(
            'dry_run',
            false,
            ['1', '0', 'true', 'false'],
            '`1`: change nothing, answer what would change.',
          ),
        ],
        requestBody: {
          required: true,
          description: `The file itself, at most ${IMPORT_LIMIT_MIB} MiB.`,
          content: {
            'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
          },
        },
      },
      {
        '200': answer('What the import changed, or would change.', 'AccountImportReport'),
        ...refusal(
          'invalid',
          'an unknown format, a file not of its format, or a record the API would refuse (the message names it, its field and why).',
        ),
        ...refusal('too_large', `the file is larger than ${IMPORT_LIMIT_MIB} MiB.`),
      },
    ),
  },
};
