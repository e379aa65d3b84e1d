/** An instant as whole microseconds since the Unix epoch (UTC). Safe as a JS number until year 2255. */
export type Micros = number;

export const MICROS_PER_MS = 1000;
export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_DAY = 86_400 * MICROS_PER_SECOND;

export function microsFromMillis(ms: number): Micros {
  return Math.trunc(ms) * MICROS_PER_MS;
}

export function millisFromMicros(us: Micros): number {
  return Math.floor(us / MICROS_PER_MS);
}

/**
 * The `updated` stamp of the next change of an account: the clock, but never at or before the
 * previous stamp, so stamps stay strictly increasing even when the clock stands still or steps back.
 */
export function nextUpdated(previous: Micros, now: Micros): Micros {
  return now > previous ? now : previous + 1;
}

/** The wall clock in Micros: the one place it is read; services and stores are given it as their Clock. */
export function nowMicros(): Micros {
  return microsFromMillis(Date.now());
}

/**
 * The time a service or store reads: `nowMicros` when serving, a test's own when it moves time
 * instead of waiting for it.
 */
export type Clock = () => Micros;
