/**
 * Moving a repeating task to its next occurrence. The series runs on the account's wall clock:
 * every occurrence is at the anchor's local time of day, on dates chosen by the rule, so a task
 * at 09:00 stays at 09:00 local across DST changes. All date selection is calendar arithmetic on
 * day numbers (repeat-series.ts); the zone is consulted only to read the anchor and to place the
 * result.
 */
import { parseRepeatRule, withCount, type RepeatUntil } from './repeat-rule.js';
import { dateOfDayNumber, dayNumberOf, firstDayOfSeriesAfter } from './repeat-series.js';
import { MICROS_PER_SECOND, type Micros } from './time.js';
import { instantAtOffset, instantOfWallClock, wallClockAtOffset, wallClockOf, type WallClock } from './zone.js';

export { isValidRepeater } from './repeat-rule.js';

/** What the series needs of a task. */
export interface RepeatingTask {
  readonly startAt: Micros | null;
  readonly endAt: Micros | null;
  readonly allDay: boolean;
  readonly repeater: string;
}

/** The task's dates at its next occurrence, and the rule that continues the series from there. */
export interface NextOccurrence {
  readonly startAt: Micros | null;
  readonly endAt: Micros | null;
  readonly repeater: string;
}

/**
 * The task's next occurrence: the first date of the series strictly after the anchor (`startAt`,
 * else `endAt`), the anchor being the series' DTSTART. The other date keeps its wall-clock
 * distance from the anchor. Null when the series has ended (COUNT used up, past UNTIL, no
 * occurrence within the search bound), the task has no date to move, or the rule is not one
 * `isValidRepeater` accepts: the task then completes normally.
 */
export function nextOccurrence(task: RepeatingTask, zone: string): NextOccurrence | null {
  const anchor = task.startAt ?? task.endAt;
  if (anchor === null) return null;
  const rule = parseRepeatRule(task.repeater);
  // COUNT counts the occurrences left, the current one included: 1 means this was the last.
  if (rule === null || (rule.count !== null && rule.count <= 1)) return null;

  const anchorClock = localClockOf(anchor, task.allDay, zone);
  const nextDay = firstDayOfSeriesAfter(rule, dayNumberOf(anchorClock));
  if (nextDay === null) return null;
  const nextClock: WallClock = { ...anchorClock, ...dateOfDayNumber(nextDay) };
  const nextAnchor = placed(nextClock, anchor, task.allDay, zone);
  if (isAfterUntil(rule.until, nextClock, nextAnchor)) return null;

  // The date that is not the anchor: endAt when there is a start, none otherwise.
  const other = task.startAt === null ? null : task.endAt;
  const nextOther = other === null ? null : keptAtDistance(other, anchorClock, nextClock, task.allDay, zone);
  const repeater = rule.count === null ? task.repeater : withCount(task.repeater, rule.count - 1);
  return task.startAt === null
    ? { startAt: null, endAt: nextAnchor, repeater }
    : { startAt: nextAnchor, endAt: nextOther, repeater };
}

/** The instant's local date and time; an all-day task's dates count as local midnights. */
function localClockOf(us: Micros, allDay: boolean, zone: string): WallClock {
  const clock = wallClockOf(us, zone);
  return allDay ? { ...clock, hour: 0, minute: 0, second: 0 } : clock;
}

/**
 * The instant at which the zone shows the clock, carrying over the original instant's fraction
 * of a second (wall clocks are read to the second), except for all-day dates, which are midnights.
 */
function placed(clock: WallClock, original: Micros, allDay: boolean, zone: string): Micros {
  const fraction = allDay ? 0 : original - Math.floor(original / MICROS_PER_SECOND) * MICROS_PER_SECOND;
  return instantOfWallClock(clock, zone) + fraction;
}

/** The instant as far on the wall clock from `nextClock` as it was from `anchorClock`. */
function keptAtDistance(
  us: Micros,
  anchorClock: WallClock,
  nextClock: WallClock,
  allDay: boolean,
  zone: string,
): Micros {
  const distance = localSecondsOf(localClockOf(us, allDay, zone)) - localSecondsOf(anchorClock);
  return placed(clockAtLocalSeconds(localSecondsOf(nextClock) + distance), us, allDay, zone);
}

/** Whether an occurrence lies past the series' UNTIL (which is inclusive). */
function isAfterUntil(until: RepeatUntil | null, clock: WallClock, at: Micros): boolean {
  if (until === null) return false;
  switch (until.kind) {
    case 'date':
      return dayNumberOf(clock) > dayNumberOf(until);
    case 'local':
      return localSecondsOf(clock) > localSecondsOf(until.wallClock);
    case 'utc':
      return at > until.at;
  }
}

/*
 * Wall-clock distances: a "local seconds" value counts the seconds a wall clock shows since
 * 1970-01-01 00:00:00 as if it were UTC, so a distance on the wall clock is a plain difference.
 */
function localSecondsOf(clock: WallClock): number {
  return instantAtOffset(clock, 0) / MICROS_PER_SECOND;
}

function clockAtLocalSeconds(seconds: number): WallClock {
  return wallClockAtOffset(seconds * MICROS_PER_SECOND, 0);
}
