import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backupSqliteFile } from '../../src/store/sqlite/backup.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A WAL-mode file with `rows` rows of padding, so that the copy takes many steps. */
function liveFile(rows: number): { file: string; folder: string; writer: Database.Database } {
  const folder = mkdtempSync(path.join(tmpdir(), 'task-service-backup-'));
  folders.push(folder);
  const file = path.join(folder, 'live.sqlite');
  const writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.exec('CREATE TABLE t (n INTEGER PRIMARY KEY, pad TEXT NOT NULL)');
  const insert = writer.prepare<[number, string]>('INSERT INTO t (n, pad) VALUES (?, ?)');
  writer.transaction(() => {
    for (let n = 1; n <= rows; n += 1) insert.run(n, 'x'.repeat(500));
  })();
  return { file, folder, writer };
}

describe('the online backup of the SQLite file', () => {
  it('finishes while another connection writes between its steps, with every row written before it began', async () => {
    const { file, folder, writer } = liveFile(4000);
    const insert = writer.prepare<[number, string]>('INSERT INTO t (n, pad) VALUES (?, ?)');
    let next = 4001;
    let steps = 0;
    const destination = path.join(folder, 'copy.sqlite');
    // A write after every step: a stepped copy would start over for ever.
    const summary = await backupSqliteFile(file, destination, () => {
      steps += 1;
      insert.run(next, 'y');
      next += 1;
    });
    writer.close();

    expect(summary.restarts).toBeGreaterThan(0);
    expect(steps).toBeGreaterThan(2);
    const copy = new Database(destination, { readonly: true });
    expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    const count = copy.prepare<[], number>('SELECT count(*) FROM t WHERE n <= 4000').pluck().get();
    copy.close();
    expect(count).toBe(4000);
    // No partial copy, nor the copy's own WAL, is left beside it.
    expect(readdirSync(folder).filter((name) => name.startsWith('copy'))).toEqual(['copy.sqlite']);
  });

  it('copies in steps and reports the pages copied when nothing writes', async () => {
    const { file, folder, writer } = liveFile(4000);
    writer.close();
    const seen: number[] = [];
    const summary = await backupSqliteFile(file, path.join(folder, 'copy.sqlite'), (progress) =>
      seen.push(progress.copiedPages),
    );
    expect(summary.restarts).toBe(0);
    expect(seen.length).toBeGreaterThan(10);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });
});
