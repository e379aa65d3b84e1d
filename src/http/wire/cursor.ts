import type { ReturnedPosition, SyncPosition } from '../../domain/sync.js';

/**
 * The opaque `cursor` of list answers: the store's epoch and a change number (`c2.<epoch>.<rev>`),
 * wrapped so that clients treat it as a token. `c1.<rev>` cursors, handed out before stores had
 * epochs, are still read: they carry no epoch (docs/api.md says how long they hold).
 */
const CURRENT = 'c2.';
const LEGACY = 'c1.';
const REV = /^[0-9a-z]{1,11}$/;
const EPOCH = /^[0-9a-z]{1,32}$/;

export function encodeCursor(position: SyncPosition): string {
  return `${CURRENT}${position.epoch}.${position.rev.toString(36)}`;
}

/** The position a cursor stands for, or undefined when the text is no cursor of ours. */
export function decodeCursor(text: string): ReturnedPosition | undefined {
  if (text.startsWith(LEGACY)) {
    const rev = revOf(text.slice(LEGACY.length));
    return rev === undefined ? undefined : { epoch: null, rev };
  }
  if (!text.startsWith(CURRENT)) return undefined;
  const [epoch, digits, ...rest] = text.slice(CURRENT.length).split('.');
  if (epoch === undefined || digits === undefined || rest.length > 0 || !EPOCH.test(epoch)) return undefined;
  const rev = revOf(digits);
  return rev === undefined ? undefined : { epoch, rev };
}

function revOf(digits: string): number | undefined {
  if (!REV.test(digits)) return undefined;
  const rev = parseInt(digits, 36);
  return Number.isSafeInteger(rev) ? rev : undefined;
}
