/**
 * The answers of the signed-in browser's account endpoints (`/account/*`, docs/auth.md) as zod
 * schemas, beside shapes.ts (the /v1 answers) and oauth-shapes.ts. account.ts builds its bodies as
 * these types, and the OpenAPI document is generated from them. The forms the endpoints read are
 * described here too, for the document: the endpoints read them field by field (form.ts). The SDK
 * (src/client/account.ts) takes its types from here, so this file imports nothing that needs Node.
 */
import { z } from 'zod';
import { PASSWORD_MIN_LENGTH } from '../../domain/account.js';
import { IMPORT_PREVIEW_SIZE } from '../../domain/portable.js';
import { wireDateTime } from './shapes.js';

/** Every string below arrives HTML-escaped (`&`, `<`, `>`, `'`, `"` as entities), as in /v1. */
const escaped = z.string();
const scope = z.enum(['read', 'write']);

export const ACCOUNT_ERROR_CODES = [
  'signed_out',
  'forbidden',
  'invalid',
  'not_found',
  'too_large',
  'server_error',
] as const;
export type AccountErrorCode = (typeof ACCOUNT_ERROR_CODES)[number];

export const accountErrorBody = z
  .strictObject({
    error: z.enum(ACCOUNT_ERROR_CODES),
    message: escaped.meta({ description: 'What went wrong, for the person.' }),
  })
  .meta({ description: "An account endpoint's refusal; `error` names the kind, one per HTTP status." });
export type AccountErrorBody = z.infer<typeof accountErrorBody>;

export const accountSession = z
  .strictObject({
    id: z.string().regex(/^\d+$/).meta({ description: 'The account number, as `id` in `/v1/settings`.' }),
    username: escaped,
    csrf: z.string().min(1).meta({ description: 'The CSRF token to send with every POST (`X-CSRF-Token`).' }),
  })
  .meta({ description: 'Who is signed in, and the CSRF token for the POSTs.' });
export type AccountSessionBody = z.infer<typeof accountSession>;

export const appTokenAnswer = z
  .strictObject({
    access_token: z.string().min(1),
    token_type: z.literal('bearer'),
    expires_in: z.int().positive().meta({ description: 'Seconds the token lives.' }),
    scope: z.literal('write'),
  })
  .meta({
    description:
      "A token for the web app, bound to this browser's session (ended with it), in the token endpoint's shape without a refresh token.",
  });
export type AppTokenBody = z.infer<typeof appTokenAnswer>;

export const personalToken = z
  .strictObject({
    id: z
      .string()
      .regex(/^[0-9a-f]{16}$/)
      .meta({ description: 'The public id of the token (what revoking names); never the token.' }),
    name: escaped,
    scope,
    created: wireDateTime,
    last_used: wireDateTime.nullable(),
    expires: wireDateTime.nullable().meta({ description: 'null: never.' }),
  })
  .meta({ description: "One of the person's own tokens, as Settings lists it." });
export type PersonalTokenBody = z.infer<typeof personalToken>;

export const personalTokenList = z
  .strictObject({ tokens: z.array(personalToken) })
  .meta({ description: "The person's own live tokens: not those apps hold, nor the web app's per-browser ones." });
export type PersonalTokenListBody = z.infer<typeof personalTokenList>;

export const madeToken = z
  .strictObject({
    token: z.string().min(1).meta({ description: 'The token itself, shown this once.' }),
    entry: personalToken,
  })
  .meta({ description: 'A token just made, next to what the list shows of it.' });
export type MadeTokenBody = z.infer<typeof madeToken>;

export const connectedApp = z
  .strictObject({
    client_id: z.string().meta({ description: 'The OAuth client.' }),
    name: escaped,
    scope,
    allowed: wireDateTime.meta({ description: 'When the account first allowed it.' }),
    last_used: wireDateTime.nullable().meta({ description: 'The latest use of any token it holds; null: none yet.' }),
  })
  .meta({ description: 'An OAuth client the account allowed.' });
export type ConnectedAppBody = z.infer<typeof connectedApp>;

export const connectedAppList = z
  .strictObject({ apps: z.array(connectedApp) })
  .meta({ description: 'The OAuth clients the account allowed.' });
export type ConnectedAppListBody = z.infer<typeof connectedAppList>;

const csrfField = z.string().optional().meta({ description: 'The CSRF token, when it is not sent as `X-CSRF-Token`.' });

/** The form of a POST that sends nothing but, perhaps, its CSRF token. */
export const csrfOnlyForm = z
  .looseObject({ _csrf: csrfField })
  .meta({ description: 'Nothing but, unless sent as `X-CSRF-Token`, the CSRF token.' });

export const passwordForm = z
  .looseObject({
    current_password: z.string(),
    new_password: z.string().meta({ description: `At least ${PASSWORD_MIN_LENGTH} characters.` }),
    _csrf: csrfField,
  })
  .meta({ description: 'A new password, given the current one.' });

export const makeTokenForm = z
  .looseObject({
    name: z.string().meta({ description: '1-100 characters.' }),
    scope: scope.optional().meta({ description: 'Without it, `write`.' }),
    expires_in_days: z
      .string()
      .optional()
      .meta({ description: 'Days the token lives, 1-3650; empty, `never` or missing: it never expires.' }),
    _csrf: csrfField,
  })
  .meta({ description: 'A new personal token; a field sent twice counts as not sent.' });

const changeCounts = z
  .strictObject({
    created: z.int().nonnegative(),
    updated: z.int().nonnegative(),
    unchanged: z
      .int()
      .nonnegative()
      .meta({ description: 'Records of the file the account already holds as they are.' }),
  })
  .meta({ description: "How the file's records of one kind change the account (or would, in a dry run)." });

export const importReport = z
  .strictObject({
    dry_run: z.boolean().meta({ description: 'true: nothing was changed; this is what the import would do.' }),
    settings_changed: z.boolean().meta({ description: "Whether the file's settings differ from the account's." }),
    projects: changeCounts,
    contexts: changeCounts,
    tasks: changeCounts,
    changed: z
      .array(
        z.strictObject({
          kind: z.enum(['project', 'context', 'task']),
          name: escaped.meta({ description: "A task's title, a project's or context's name." }),
          change: z.enum(['created', 'updated']),
        }),
      )
      .max(IMPORT_PREVIEW_SIZE)
      .meta({ description: `The first ${IMPORT_PREVIEW_SIZE} records created or updated, in the file's order.` }),
    unmapped: z
      .array(escaped)
      .meta({ description: 'What the file held that no field takes, one line each: kept out of the import.' }),
  })
  .meta({ description: 'What an import of a file changed in the account, or would change (`dry_run`).' });
export type ImportReportBody = z.infer<typeof importReport>;
