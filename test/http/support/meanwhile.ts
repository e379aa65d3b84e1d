import type { Client } from './api.js';

/**
 * Awaits `change` while another account writes one task after the other, as on a service in use:
 * its result, and how many of those writes were answered before it. Where one account's commit
 * holds every other (SQLite), a change written in one long commit lets none come first.
 */
export async function writingMeanwhile<T>(
  other: Client,
  change: Promise<T>,
): Promise<{ readonly result: T; readonly answeredFirst: number }> {
  let done = false;
  const watched = change.finally(() => {
    done = true;
  });
  let answeredFirst = 0;
  while (!done) {
    await other.createTask({ title: 'meanwhile' });
    if (!done) answeredFirst += 1;
  }
  return { result: await watched, answeredFirst };
}
