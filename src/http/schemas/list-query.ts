import type { FastifyRequest } from 'fastify';
import type { ReturnedPosition } from '../../domain/sync.js';
import type { ListRequest } from '../../service/listing.js';
import { readQuery } from '../query.js';
import { decodeCursor } from '../wire/cursor.js';
import { parseDateTime } from '../wire/dates.js';
import { WireError } from '../wire/errors.js';

const LIST_PARAMETERS = ['updated_after', 'cursor', 'limit'] as const;
export const LIMIT_MAX = 10_000;

/** The parameters of a list call: `updated_after` or `cursor` (not both), and `limit` 1-10000. */
export function readListQuery(request: FastifyRequest, zone: string): ListRequest {
  const query = readQuery(request, LIST_PARAMETERS);
  if (query.updated_after !== undefined && query.cursor !== undefined) {
    throw WireError.unsupportedParameter('cursor');
  }
  let limit: number | undefined;
  if (query.limit !== undefined) {
    limit = /^\d{1,5}$/.test(query.limit) ? Number(query.limit) : NaN;
    if (!(limit >= 1 && limit <= LIMIT_MAX)) throw WireError.invalidParameter('limit', `1-${LIMIT_MAX}`);
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
  };
}
