import type { ReturnedPosition, SyncPosition } from '../../domain/sync.js';

/**
 * The opaque `cursor` of list answers: the store's epoch, a change number and, once the account
 * was purged, its purge mark then (`c2.<epoch>.<rev>[.<purged rev>]`), wrapped so that clients
 * treat it as a token. `c1.<rev>` cursors, handed out before stores had epochs, are still read:
 * they carry no epoch (docs/api.md says how long they hold).
 */
const CURRENT = 'c2.';
const LEGACY = 'c1.';
const REV = /^[0-9a-z]{1,11}$/;
const EPOCH = /^[0-9a-z]{1,32}$/;

export function encodeCursor(position: SyncPosition): string {
  const purged = position.purgedRev === 0 ? '' : `.${position.purgedRev.toString(36)}`;
  return `${CURRENT}${position.epoch}.${position.rev.toString(36)}${purged}`;
}

/** The position a cursor stands for, or undefined when the text is no cursor of ours. */
export function decodeCursor(text: string): ReturnedPosition | undefined {
  if (text.startsWith(LEGACY)) {
    const rev = revOf(text.slice(LEGACY.length));
    return rev === undefined ? undefined : { epoch: null, rev, purgedRev: 0 };
  }
  if (!text.startsWith(CURRENT)) return undefined;
  const [epoch, digits, purgedDigits, ...rest] = text.slice(CURRENT.length).split('.');
  if (epoch === undefined || digits === undefined || rest.length > 0 || !EPOCH.test(epoch)) return undefined;
  const rev = revOf(digits);
  const purgedRev = purgedDigits === undefined ? 0 : revOf(purgedDigits);
  // A purge mark of 0 is written by leaving it out: one form per position.
  if (rev === undefined || purgedRev === undefined || (purgedDigits !== undefined && purgedRev === 0)) return undefined;
  return { epoch, rev, purgedRev };
}

function revOf(digits: string): number | undefined {
  if (!REV.test(digits)) return undefined;
  const rev = parseInt(digits, 36);
  return Number.isSafeInteger(rev) ? rev : undefined;
}
