import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { RETCODES } from '../../src/http/wire/errors.js';

describe('docs/api.md', () => {
  it('lists every retcode the service can answer', async () => {
    const doc = await readFile(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const missing = RETCODES.filter((retcode) => !new RegExp(`\\b${retcode}\\b`).test(doc));
    expect(missing).toEqual([]);
  });
});
