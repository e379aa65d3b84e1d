import { describe, expect, it } from 'vitest';
import { acceptsGzip } from '../../src/http/compression.js';

describe('Accept-Encoding', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.8', true],
    ['GZIP', true],
    ['x-gzip', true],
    ['*', true],
    ['gzip;q=0', false],
    ['gzip;q=0.0, *', false],
    ['*;q=0', false],
    ['deflate, br', false],
    ['identity', false],
    ['', false],
  ])('%j allows gzip: %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });

  it('is off without the header', () => {
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
