import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../../src/http/answer-cache.js';

describe('AnswerCache', () => {
  const head = { rev: 7, purgedRev: 0 };
  /** Bytes the cache counts for an answer of `bodyBytes` under a one-character key, besides the body. */
  const overhead = (() => {
    const probe = new AnswerCache({ maxBytes: 1e6, maxEntryBytes: 1e6 });
    probe.set('k', head, '');
    return probe.bytes;
  })();

  it('keeps answers within its bound in bytes, keys and overhead counted, dropping the oldest', () => {
    const cache = new AnswerCache({ maxBytes: 2 * (overhead + 4), maxEntryBytes: 1e6 });
    cache.set('a', head, 'aaaa');
    cache.set('b', head, 'bbbb');
    cache.set('c', head, 'cccc');
    expect(cache.get('a', head)).toBeUndefined();
    expect(cache.get('b', head)?.body.toString()).toBe('bbbb');
    expect(cache.get('c', head)?.body.toString()).toBe('cccc');
    expect(cache.bytes).toBe(2 * (overhead + 4));
  });

  it('does not keep an answer over its entry bound', () => {
    const cache = new AnswerCache({ maxBytes: 1e6, maxEntryBytes: overhead + 10 });
    expect(cache.set('huge', head, 'x'.repeat(11)).body.toString()).toBe('x'.repeat(11));
    expect(cache.get('huge', head)).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });

  it('counts a gzip copy made later, pushing older answers out, or the answer itself when it grew too big', () => {
    const text = JSON.stringify(Array.from({ length: 2000 }, (_unused, index) => ({ n: index, r: Math.random() })));
    const gzipped = gzipSync(text);
    const cache = new AnswerCache({
      maxBytes: 2 * (overhead + text.length) + gzipped.length,
      maxEntryBytes: overhead + text.length + gzipped.length,
    });
    cache.set('a', head, text);
    const b = cache.set('b', head, text);
    b.gzipped = gzipped;
    expect(cache.bytes).toBe(2 * (overhead + text.length) + gzipped.length);
    const c = cache.set('c', head, text);
    expect(cache.get('a', head)).toBeUndefined();
    expect(cache.get('b', head)?.gzipped).toBe(gzipped);
    c.gzipped = gzipped;
    // b (the oldest now) made room for c's copy.
    expect(cache.get('b', head)).toBeUndefined();
    expect(cache.bytes).toBe(overhead + text.length + gzipped.length);

    const small = new AnswerCache({ maxBytes: 1e7, maxEntryBytes: overhead + text.length + 10 });
    const kept = small.set('d', head, text);
    kept.gzipped = gzipped;
    expect(kept.gzipped).toBe(gzipped);
    expect(small.get('d', head)).toBeUndefined();
    expect(small.bytes).toBe(0);
  });

  it('answers only for the head it was read at', () => {
    const cache = new AnswerCache({ maxBytes: 1e6, maxEntryBytes: 1e6 });
    cache.set('page', head, 'body');
    expect(cache.get('page', { rev: 8, purgedRev: 0 })).toBeUndefined();
    cache.set('page', head, 'body');
    expect(cache.get('page', { rev: 7, purgedRev: 3 })).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});
