import { dayOf, timeOf } from '../dates.ts';

/** `YYYY-MM-DD HH:MM` in the account's zone: when a token or an app was made or last used. */
export function whenText(instant: Date, zone: string): string {
  return `${dayOf(instant.getTime(), zone)} ${timeOf(instant.getTime(), zone)}`;
}
