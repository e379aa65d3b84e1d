/**
 * The one catalogue of the contract's error codes (API.md section 6): status, message, and the
 * error body every failure answers with.
 */
import type { Problem } from '../../domain/errors.js';
import type { SyncKind } from '../../domain/sync.js';
import { jsonString } from './json.js';

/** Every retcode, each once, in the order of the contract's table. */
export const RETCODES = [
  'E001',
  'E002',
  'E003',
  'E004',
  'E005',
  'E006',
  'E007',
  'E008',
  'E009',
  'E401',
  'E403',
  'E500',
  'E502',
  'E503',
] as const;

export type Retcode = (typeof RETCODES)[number];

export type HttpStatus = 400 | 401 | 403 | 500 | 502 | 503;

interface CatalogueEntry {
  readonly status: HttpStatus;
  /** Builds the retmsg; codes whose message names something take it as typed arguments. */
  readonly retmsg: (...details: never[]) => string;
}

/**
 * A message with an optional short reason, written in parentheses after it:
 * `invalid parameter: limit (1-10000)`. Parentheses keep the contract's message a prefix, so a
 * client matching on `invalid parameter: limit` still matches.
 */
function withReason(message: string, reason: string | undefined): string {
  return reason === undefined ? message : `${message} (${reason})`;
}

const CATALOGUE = {
  E001: { status: 400, retmsg: () => 'can not parse the request json' },
  E002: { status: 400, retmsg: () => 'the address does not exist' },
  // Exactly the contract's message: clients compare it whole, so nothing follows the name.
  E003: { status: 400, retmsg: (name: string) => `parameter is not supported: ${name}` },
  E004: { status: 400, retmsg: (name: string, reason?: string) => withReason(`invalid parameter: ${name}`, reason) },
  E005: { status: 400, retmsg: () => 'content type must be application/json' },
  E006: { status: 400, retmsg: (reason?: string) => withReason('request body too large', reason) },
  E007: { status: 400, retmsg: (kind: SyncKind, id: string) => `not found: ${kind} ${id}` },
  E008: { status: 400, retmsg: () => 'cursor expired' },
  E009: { status: 400, retmsg: (kind: SyncKind, id: string) => `conflict: ${kind} ${id} changed` },
  E401: { status: 401, retmsg: () => 'unauthorized' },
  E403: { status: 403, retmsg: () => 'forbidden' },
  E500: { status: 500, retmsg: () => 'internal error' },
  E502: { status: 502, retmsg: () => 'the service is being upgraded' },
  E503: { status: 503, retmsg: () => 'server resources are unavailable' },
} as const satisfies { readonly [Code in Retcode]: CatalogueEntry };

export function statusOf(retcode: Retcode): HttpStatus {
  return CATALOGUE[retcode].status;
}

/** The field an E004 names, kept so an array request can prefix it with the entry's index. */
interface InvalidField {
  readonly name: string;
  readonly reason: string | undefined;
}

/** A failure to answer with the common error body; made only through the factories below. */
export class WireError extends Error {
  private constructor(
    readonly retcode: Retcode,
    readonly retmsg: string,
    private readonly invalidField?: InvalidField,
  ) {
    super(`${retcode} ${retmsg}`);
    this.name = 'WireError';
  }

  get status(): HttpStatus {
    return statusOf(this.retcode);
  }

  /** E001: the body is empty, not UTF-8, not JSON, or broken gzip. */
  static unparsableJson(): WireError {
    return new WireError('E001', CATALOGUE.E001.retmsg());
  }

  /** E002: unknown path, version or resource, or a method other than GET and POST. */
  static noSuchAddress(): WireError {
    return new WireError('E002', CATALOGUE.E002.retmsg());
  }

  /** E003: an unknown query parameter, or one that conflicts with another. */
  static unsupportedParameter(name: string): WireError {
    return new WireError('E003', CATALOGUE.E003.retmsg(name));
  }

  /** E004: a bad value in the query or the body. */
  static invalidParameter(name: string, reason?: string): WireError {
    return new WireError('E004', CATALOGUE.E004.retmsg(name, reason), { name, reason });
  }

  /** E005: a POST whose Content-Type is not JSON in UTF-8. */
  static contentType(): WireError {
    return new WireError('E005', CATALOGUE.E005.retmsg());
  }

  /** E006: the body is over the limit (after gunzip), or would take the account past its quota. */
  static bodyTooLarge(reason?: string): WireError {
    return new WireError('E006', CATALOGUE.E006.retmsg(reason));
  }

  /** E007: no such record in this account. */
  static notFound(kind: SyncKind, id: string): WireError {
    return new WireError('E007', CATALOGUE.E007.retmsg(kind, id));
  }

  /** E008: a cursor or `updated_after` older than the oldest purge, or from before a restore. */
  static cursorExpired(): WireError {
    return new WireError('E008', CATALOGUE.E008.retmsg());
  }

  /** E009: `if_rev` does not match the record's current `rev`. */
  static conflict(kind: SyncKind, id: string): WireError {
    return new WireError('E009', CATALOGUE.E009.retmsg(kind, id));
  }

  /** E401: no credential, or one that is unknown, malformed, expired or revoked. */
  static unauthorized(): WireError {
    return new WireError('E401', CATALOGUE.E401.retmsg());
  }

  /** E403: a valid credential that may not do this. */
  static forbidden(): WireError {
    return new WireError('E403', CATALOGUE.E403.retmsg());
  }

  /** E500: anything unexpected; the message tells nothing of the cause. */
  static internal(): WireError {
    return new WireError('E500', CATALOGUE.E500.retmsg());
  }

  /** E502: maintenance mode. */
  static maintenance(): WireError {
    return new WireError('E502', CATALOGUE.E502.retmsg());
  }

  /** E503: overload, rate limit or an unreachable store. */
  static unavailable(): WireError {
    return new WireError('E503', CATALOGUE.E503.retmsg());
  }

  /** The same error for entry `index` of an array request: `invalid parameter: [3].title`. */
  atIndex(index: number): WireError {
    if (this.invalidField === undefined) return this;
    return WireError.invalidParameter(`[${index}].${this.invalidField.name}`, this.invalidField.reason);
  }
}

/** The wire error for a problem a use case reported. */
export function fromProblem(problem: Problem): WireError {
  switch (problem.kind) {
    case 'invalid':
      return WireError.invalidParameter(problem.field, problem.reason);
    case 'not_found':
      return WireError.notFound(problem.record, problem.id);
    case 'cursor_expired':
      return WireError.cursorExpired();
    case 'conflict':
      return WireError.conflict(problem.record, problem.id);
    case 'key_reused':
      return WireError.invalidParameter('Idempotency-Key', 'used for another request');
    case 'storage_full':
      return WireError.bodyTooLarge(
        problem.measure === 'records'
          ? `the account may store at most ${problem.max} records`
          : `the account may store at most ${problem.max} bytes of text`,
      );
  }
}

/** reqdata is cut at 64 KiB, counted in UTF-16 code units as JavaScript strings are. */
const REQDATA_MAX = 65_536;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The request data cut to REQDATA_MAX code units, one shorter when the cut would split a surrogate pair. */
function cutReqdata(reqdata: string): string {
  if (reqdata.length <= REQDATA_MAX) return reqdata;
  const end = isHighSurrogate(reqdata.charCodeAt(REQDATA_MAX - 1)) ? REQDATA_MAX - 1 : REQDATA_MAX;
  return reqdata.slice(0, end);
}

/** `{"retcode":"E004","retmsg":"…","reqdata":"…"}` with both texts HTML-escaped like every string. */
export function renderErrorBody(retcode: Retcode, retmsg: string, reqdata: string): string {
  return `{"retcode":"${retcode}","retmsg":${jsonString(retmsg)},"reqdata":${jsonString(cutReqdata(reqdata))}}`;
}
