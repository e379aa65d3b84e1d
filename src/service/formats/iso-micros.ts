import type { Micros } from '../../domain/time.js';

/** An instant as ISO 8601 in UTC with all six fractional digits: nothing of a Micros is lost. */
export function isoOfMicros(us: Micros): string {
  const ms = Math.floor(us / 1000);
  const extra = us - ms * 1000;
  return new Date(ms).toISOString().replace('Z', `${String(extra).padStart(3, '0')}Z`);
}

const ISO_UTC = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?Z$/;

/** The instant of an ISO 8601 UTC text (`…Z`, up to six fractional digits), or undefined. */
export function microsOfIso(text: string): Micros | undefined {
  const match = ISO_UTC.exec(text);
  if (match?.[1] === undefined) return undefined;
  const seconds = Date.parse(`${match[1]}Z`);
  if (Number.isNaN(seconds)) return undefined;
  return seconds * 1000 + Number((match[2] ?? '').padEnd(6, '0'));
}
