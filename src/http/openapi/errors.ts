/**
 * The error answers of each operation: the retcodes it can answer, grouped by their HTTP status
 * (the status comes from the error catalogue, src/http/wire/errors.ts).
 */
import { statusOf, type Retcode } from '../wire/errors.js';
import { componentRef, type JsonSchema } from './components.js';

/** When each retcode is answered (API.md section 6), for the reader of the document. */
const WHEN: { readonly [Code in Retcode]: string } = {
  E001: 'the POST body is empty, not UTF-8, not JSON, or broken gzip',
  E002: 'unknown path, version or resource, or a method other than GET and POST',
  E003: 'an unknown or conflicting query parameter',
  E004: 'a bad value in the query, the body or the Idempotency-Key (the message names the field)',
  E005: 'a POST without a JSON content type',
  E006: 'the body is over 1 MiB (after gunzip), or the write would take the account past its storage cap (the reason names it)',
  E007: 'no such record in this account',
  E008: 'the cursor or updated_after is older than the oldest purge, or from before a restore of the store: list again from scratch',
  E009: "`if_rev` does not match the record's current `rev`",
  E401: 'no credential, or an unknown, malformed, expired or revoked one',
  E403: 'a read-scoped token on a POST, or a disabled account',
  E500: 'anything unexpected',
  E502: 'maintenance mode',
  E503: 'overload, rate limit or an unreachable store: retry after Retry-After seconds',
};

/** What every request can meet, whatever it asks: shedding and failures. */
export const ALWAYS: readonly Retcode[] = ['E500', 'E503'];
/** What every /v1 request can meet besides. */
export const V1_ALWAYS: readonly Retcode[] = [...ALWAYS, 'E401', 'E403', 'E502'];

const HEADERS: Partial<Record<Retcode, Record<string, JsonSchema>>> = {
  E401: { 'WWW-Authenticate': { description: 'The scheme to authenticate with.', schema: { type: 'string' } } },
  E503: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } } },
};

/** The error responses of an operation, keyed by status, each naming its retcodes. */
export function errorResponses(retcodes: readonly Retcode[]): Record<string, JsonSchema> {
  const byStatus = new Map<number, Retcode[]>();
  for (const retcode of [...new Set(retcodes)].sort()) {
    const status = statusOf(retcode);
    byStatus.set(status, [...(byStatus.get(status) ?? []), retcode]);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Record<string, JsonSchema> = {};
    for (const code of codes) Object.assign(headers, HEADERS[code]);
    responses[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${WHEN[code]}.`).join(' '),
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
      content: {
        'application/json': {
          schema: { allOf: [componentRef('Error'), { type: 'object', properties: { retcode: { enum: codes } } }] },
        },
      },
    };
  }
  return responses;
}
