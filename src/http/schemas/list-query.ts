import type { FastifyRequest } from 'fastify';
import type { ReturnedPosition } from '../../domain/sync.js';
import type { ListRequest } from '../../service/listing.js';
import { readQuery } from '../query.js';
import { decodeCursor } from '../wire/cursor.js';
import { parseDateTime } from '../wire/dates.js';
import { WireError } from '../wire/errors.js';

const LIST_PARAMETERS = ['updated_after', 'cursor', 'limit', 'wait'] as const;
export const LIMIT_MAX = 10_000;
/** `wait`, in seconds (API.md 4.6). */
export const WAIT_MIN_SECONDS = 1;
export const WAIT_MAX_SECONDS = 60;

/** A list call's parameters, and how long it may wait for a change when there is none yet. */
export interface ListCall extends ListRequest {
  readonly waitSeconds?: number;
}

/**
 * The parameters of a list call: `updated_after` or `cursor` (not both), `limit` 1-10000, and
 * `wait` 1-60, only with `cursor` (without one there is nothing to wait past: E003).
 */
export function readListQuery(request: FastifyRequest, zone: string): ListCall {
  const query = readQuery(request, LIST_PARAMETERS);
  if (query.updated_after !== undefined && query.cursor !== undefined) {
    throw WireError.unsupportedParameter('cursor');
  }
  let limit: number | undefined;
  if (query.limit !== undefined) {
    limit = /^\d{1,5}$/.test(query.limit) ? Number(query.limit) : NaN;
    if (!(limit >= 1 && limit <= LIMIT_MAX)) throw WireError.invalidParameter('limit', `1-${LIMIT_MAX}`);
  }
  let waitSeconds: number | undefined;
  if (query.wait !== undefined) {
    if (query.cursor === undefined) throw WireError.unsupportedParameter('wait');
    waitSeconds = /^\d{1,2}$/.test(query.wait) ? Number(query.wait) : NaN;
    if (!(waitSeconds >= WAIT_MIN_SECONDS && waitSeconds <= WAIT_MAX_SECONDS)) {
      throw WireError.invalidParameter('wait', `${WAIT_MIN_SECONDS}-${WAIT_MAX_SECONDS} seconds`);
    }
  }
  let after: ReturnedPosition | undefined;
  if (query.cursor !== undefined) {
    after = decodeCursor(query.cursor);
    if (after === undefined) throw WireError.invalidParameter('cursor');
  }
  let updatedAfter: number | undefined;
  if (query.updated_after !== undefined) {
    updatedAfter = parseDateTime(query.updated_after, zone);
    if (updatedAfter === undefined) throw WireError.invalidParameter('updated_after', 'not a date-time');
  }
  return {
    ...(after === undefined ? {} : { after }),
    ...(updatedAfter === undefined ? {} : { updatedAfter }),
    ...(limit === undefined ? {} : { limit }),
    ...(waitSeconds === undefined ? {} : { waitSeconds }),
  };
}
