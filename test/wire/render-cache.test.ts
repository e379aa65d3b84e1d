import { describe, expect, it } from 'vitest';
import { RenderCache, renderEntryBytes } from '../../src/http/wire/render-cache.js';

describe('RenderCache', () => {
  const record = (rev: number, title = `r${rev}`) => ({ rev, title });
  const large = { maxBytes: 1024 * 1024, maxEntryBytes: 64 * 1024 };

  it('renders a record once per account, rev and zone', () => {
    const cache = new RenderCache(large);
    let calls = 0;
    const render = (value: { rev: number; title: string }, zone: string) => {
      calls += 1;
      return `${value.title}@${zone}`;
    };
    expect(cache.render(1, 'UTC', record(5), render)).toBe('r5@UTC');
    expect(cache.render(1, 'UTC', record(5), render)).toBe('r5@UTC');
    expect(calls).toBe(1);
    expect(cache.render(1, 'Asia/Tokyo', record(5), render)).toBe('r5@Asia/Tokyo');
    expect(cache.render(2, 'UTC', record(5), render)).toBe('r5@UTC');
    expect(calls).toBe(3);
  });

  it('keeps at most its bound in bytes, keys and overhead counted, dropping the oldest first', () => {
    const one = renderEntryBytes('1:1:UTC', 'r1');
    const cache = new RenderCache({ maxBytes: 2 * one, maxEntryBytes: one });
    let calls = 0;
    const render = (value: { rev: number; title: string }) => {
      calls += 1;
      return value.title;
    };
    cache.render(1, 'UTC', record(1), render);
    cache.render(1, 'UTC', record(2), render);
    cache.render(1, 'UTC', record(3), render);
    expect(calls).toBe(3);
    expect(cache.bytes).toBe(2 * one);
    cache.render(1, 'UTC', record(3), render);
    cache.render(1, 'UTC', record(2), render);
    expect(calls).toBe(3);
    cache.render(1, 'UTC', record(1), render);
    expect(calls).toBe(4);
  });

  it('never keeps a rendering over its entry bound, and never holds more than its bound', () => {
    const cache = new RenderCache({ maxBytes: 200_000, maxEntryBytes: 20_000 });
    let calls = 0;
    const render = (value: { rev: number; title: string }) => {
      calls += 1;
      return value.title;
    };
    const huge = record(1, '&amp;'.repeat(100_000));
    cache.render(1, 'UTC', huge, render);
    cache.render(1, 'UTC', huge, render);
    expect(calls).toBe(2);
    expect(cache.bytes).toBe(0);
    for (let rev = 2; rev < 2000; rev += 1) cache.render(1, 'Europe/Berlin', record(rev, 'x'.repeat(5000)), render);
    expect(cache.bytes).toBeLessThanOrEqual(200_000);
    expect(cache.bytes).toBeGreaterThan(150_000);
  });
});
