import { describe, expect, it } from 'vitest';
import { RenderCache } from '../../src/http/wire/render-cache.js';

describe('RenderCache', () => {
  const record = (rev: number) => ({ rev, title: `r${rev}` });

  it('renders a record once per account, rev and zone', () => {
    const cache = new RenderCache(10);
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

  it('keeps at most its bound, dropping the oldest first', () => {
    const cache = new RenderCache(2);
    let calls = 0;
    const render = (value: { rev: number; title: string }) => {
      calls += 1;
      return value.title;
    };
    cache.render(1, 'UTC', record(1), render);
    cache.render(1, 'UTC', record(2), render);
    cache.render(1, 'UTC', record(3), render);
    expect(calls).toBe(3);
    cache.render(1, 'UTC', record(3), render);
    cache.render(1, 'UTC', record(2), render);
    expect(calls).toBe(3);
    cache.render(1, 'UTC', record(1), render);
    expect(calls).toBe(4);
  });
});
