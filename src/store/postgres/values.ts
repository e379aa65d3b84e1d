import type { Micros } from '../../domain/time.js';

/*
 * pg hands `bigint` columns back as strings (they may exceed 2^53 in general). Ours hold change
 * numbers, ids and microsecond times, all far below 2^53, so they become plain numbers here.
 */

export type BigintText = string;

export function numberFromBigint(value: BigintText): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`bigint out of the safe integer range: ${value}`);
  return parsed;
}

export function microsOrNull(value: BigintText | null): Micros | null {
  return value === null ? null : numberFromBigint(value);
}
