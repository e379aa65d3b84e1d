import { describe, expect, it } from 'vitest';
import { readZip, ZIP_LIMITS } from '../../src/service/formats/zip.js';
import { makeZip } from '../support/zip.js';
import { FULL_STRENGTH, SIXTEEN_OVERLAPPING, zipBomb } from '../support/zip-bomb.js';

const MIB = 1024 * 1024;

// Issue 21 item 1: the reader refuses a bomb, saying why, before it unpacks what would hurt.
describe('the zip reader', () => {
  it('reads an archive a tool writes', async () => {
    const entries = await readZip(makeZip([{ name: 'a.csv', text: 'x,y\n1,2\n' }], new Date(Date.UTC(2026, 0, 2))));
    expect(entries.map((entry) => [entry.name, entry.data.toString()])).toEqual([['a.csv', 'x,y\n1,2\n']]);
    expect(entries[0]?.modified).toEqual({ year: 2026, month: 1, day: 2 });
  });

  it('refuses the full-strength bomb (4 TiB declared in 65,535 records) by its count', async () => {
    await expect(readZip(zipBomb(FULL_STRENGTH))).rejects.toThrow(
      `the zip holds 65535 entries, more than the ${ZIP_LIMITS.entries} an import reads`,
    );
  });

  it('refuses records declaring more than the total, before unpacking any', async () => {
    // Each record alone passes (1 MiB, below the ratio's floor), their sum does not.
    await expect(
      readZip(zipBomb({ entries: 80, declaredBytes: MIB, inflatedBytes: MIB, overlapping: false })),
    ).rejects.toThrow("the zip's files unpack to more than the 64 MiB an import reads");
    await expect(readZip(zipBomb(SIXTEEN_OVERLAPPING))).rejects.toThrow('p0.csv in the zip unpacks to over 100 times');
  });

  it('refuses two records pointing at the same bytes', async () => {
    const shape = { entries: 2, declaredBytes: 512 * 1024, inflatedBytes: 512 * 1024 };
    await expect(readZip(zipBomb({ ...shape, overlapping: true }))).rejects.toThrow(
      'p0.csv and p1.csv in the zip overlap',
    );
    // The same files, each with bytes of its own, are read.
    expect((await readZip(zipBomb({ ...shape, overlapping: false }))).map((entry) => entry.data.length)).toEqual([
      512 * 1024,
      512 * 1024,
    ]);
  });

  it('refuses a file that unpacks to over a hundred times its packed size', async () => {
    await expect(
      readZip(zipBomb({ entries: 1, declaredBytes: 8 * MIB, inflatedBytes: 8 * MIB, overlapping: false })),
    ).rejects.toThrow('p0.csv in the zip unpacks to over 100 times its packed size');
  });

  it('stops unpacking at the declared size when the stream gives more', async () => {
    await expect(
      readZip(zipBomb({ entries: 1, declaredBytes: 1000, inflatedBytes: 64 * MIB, overlapping: false })),
    ).rejects.toThrow('p0.csv in the zip unpacks to more than the size it declares');
    await expect(
      readZip(zipBomb({ entries: 1, declaredBytes: 1000, inflatedBytes: 10, overlapping: false })),
    ).rejects.toThrow('p0.csv in the zip is not the size it declares');
  });
});
