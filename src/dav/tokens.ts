import type { ReturnedPosition, SyncPosition } from '../domain/sync.js';
import { decodeCursor, encodeCursor } from '../http/wire/cursor.js';

/**
 * ETags and sync tokens. A task's ETag is its change number: it changes whenever the task does,
 * whoever changed it (a /v1 write, the web app, a project rename), and is strong. A sync token
 * is a URI around the account's /v1 cursor, so both edges share one notion of a position.
 */

export function etagOf(rev: number): string {
  return `"${rev}"`;
}

/** The change numbers of an If-Match or If-None-Match list, or `*`; other ETags match nothing. */
export function revsOfEtags(header: string): '*' | number[] {
  if (header.trim() === '*') return '*';
  const revs: number[] = [];
  for (const tag of header.split(',')) {
    const match = /^\s*(?:W\/)?"(\d{1,15})"\s*$/.exec(tag);
    // A weak ETag never matches strongly: If-Match compares strongly (RFC 9110 13.1.1).
    if (match?.[1] !== undefined && !/^\s*W\//.test(tag)) revs.push(Number(match[1]));
  }
  return revs;
}

const SYNC_TOKEN_PREFIX = 'http://task-service.invalid/sync/';

export function syncTokenOf(position: SyncPosition): string {
  return `${SYNC_TOKEN_PREFIX}${encodeCursor(position)}`;
}

/** The position a sync token stands for, or undefined when it is no token of ours. */
export function positionOfSyncToken(token: string): ReturnedPosition | undefined {
  const trimmed = token.trim();
  if (!trimmed.startsWith(SYNC_TOKEN_PREFIX)) return undefined;
  return decodeCursor(trimmed.slice(SYNC_TOKEN_PREFIX.length));
}
