import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/http/wire/cursor.js';

describe('the cursor on the wire', () => {
  it('carries the epoch and the change number, and reads back what it wrote', () => {
    const position = { epoch: '0f3a9c21d4e5b6a7', rev: 123_456_789, purgedRev: 0 };
    const cursor = encodeCursor(position);
    expect(cursor).toBe('c2.0f3a9c21d4e5b6a7.21i3v9');
    expect(decodeCursor(cursor)).toEqual(position);
    // Once the account was purged, its purge mark then.
    expect(encodeCursor({ ...position, purgedRev: 35 })).toBe('c2.0f3a9c21d4e5b6a7.21i3v9.z');
    expect(decodeCursor('c2.0f3a9c21d4e5b6a7.21i3v9.z')).toEqual({ ...position, purgedRev: 35 });
    const largest = { epoch: 'a', rev: Number.MAX_SAFE_INTEGER, purgedRev: Number.MAX_SAFE_INTEGER };
    expect(decodeCursor(encodeCursor(largest))).toEqual(largest);
  });

  it('reads a cursor of earlier releases (c1.) as a position without an epoch', () => {
    expect(decodeCursor('c1.a')).toEqual({ epoch: null, rev: 10, purgedRev: 0 });
    expect(decodeCursor('c1.0')).toEqual({ epoch: null, rev: 0, purgedRev: 0 });
  });

  it('refuses what is no cursor of ours', () => {
    for (const text of [
      '',
      'c2.',
      'c2.5',
      'c2.ab.',
      'c2..5',
      'c2.ab.5.6.7',
      'c2.ab.5.0',
      'c2.ab.5.',
      'c2.AB.5',
      'c2.ab.!',
      'c3.ab.5',
      'c1.',
      'c1.zzzzzzzzzzzz',
    ]) {
      expect(decodeCursor(text), text).toBeUndefined();
    }
  });
});
