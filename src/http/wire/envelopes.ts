/**
 * The JSON around rendered records and the fixed answers: every envelope of the wire format,
 * written here and nowhere else.
 */
import type { SyncPosition } from '../../domain/sync.js';
import { encodeCursor } from './cursor.js';

/** `GET /healthz` when the store answers. */
export const HEALTH_OK = '{"status":"ok"}';

/** A POST's answer: the record alone, or `{"entries":[…]}` when the request sent an array. */
export function writeAnswer(rendered: readonly string[], many: boolean): string {
  return many ? `{"entries":[${rendered.join(',')}]}` : (rendered[0] ?? '{}');
}

/** A list answer is `LIST_START`, the entries joined by commas, then `listEnd(…)`. */
export const LIST_START = '{"entries":[';

/** Whether a list answer's text holds no entry: what a request waiting for changes holds back. */
export function isEmptyList(body: Buffer): boolean {
  return body.subarray(0, EMPTY_START.length).equals(EMPTY_START);
}
const EMPTY_START = Buffer.from(`${LIST_START}]`);

export function listEnd(cursor: SyncPosition, hasMore: boolean): string {
  return `],"cursor":"${encodeCursor(cursor)}","has_more":${String(hasMore)}}`;
}
