import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../../src/http/answer-cache.js';

describe('AnswerCache', () => {
  const head = { rev: 7, purgedRev: 0 };

  it('keeps answers within its bound in bytes, dropping the oldest', () => {
    const cache = new AnswerCache(10);
    cache.set('a', head, 'aaaa');
    cache.set('b', head, 'bbbb');
    cache.set('c', head, 'cccc');
    expect(cache.get('a', head)).toBeUndefined();
    expect(cache.get('b', head)?.body.toString()).toBe('bbbb');
    expect(cache.get('c', head)?.body.toString()).toBe('cccc');
    cache.set('huge', head, 'x'.repeat(11));
    expect(cache.get('huge', head)).toBeUndefined();
  });

  it('answers only for the head it was read at', () => {
    const cache = new AnswerCache(100);
    cache.set('page', head, 'body');
    expect(cache.get('page', { rev: 8, purgedRev: 0 })).toBeUndefined();
    cache.set('page', head, 'body');
    expect(cache.get('page', { rev: 7, purgedRev: 3 })).toBeUndefined();
  });
});
