import type { Account } from '../domain/account.js';
import type { ExportFormat, ImportFormat, PortableAccount } from '../domain/portable.js';
import type { Micros } from '../domain/time.js';
import { wallClockOf } from '../domain/zone.js';
import { readAccountJson, writeAccountJson } from './formats/account-json.js';

/**
 * The export file of an account's data. iCalendar and the Todoist reader are loaded when first
 * used: ical.js is large, and most runs of the command line never need it.
 */
export async function writePortableFile(
  format: ExportFormat,
  account: Account,
  data: PortableAccount,
  exported: Micros,
): Promise<string> {
  if (format === 'json') return writeAccountJson(account, data, exported);
  const { writeIcs } = await import('./formats/ics.js');
  return writeIcs(data, account.timezone, exported);
}

/** Where an import's file came from: its name (a Todoist project's CSV is named for the project), and when. */
export interface ImportSource {
  readonly name?: string;
  readonly now: Micros;
}

/** A zip archive starts with a local file header, or (empty) with its end record. */
function isZip(file: Buffer): boolean {
  return file.length >= 4 && file[0] === 0x50 && file[1] === 0x4b && (file[2] === 3 || file[2] === 5);
}

/**
 * A file's records, read in `zone` where the file's dates have none (all-day dates, floating
 * times). Throws FormatError, saying why, when the file is not of its format. Todoist's is its
 * backup (a zip of CSV files) or one project's CSV export, told apart by their first bytes.
 */
export async function readPortableFile(
  format: ImportFormat,
  file: Buffer,
  zone: string,
  source: ImportSource,
): Promise<PortableAccount> {
  switch (format) {
    case 'json':
      return readAccountJson(file.toString('utf8'));
    case 'ics': {
      const { readIcs } = await import('./formats/ics.js');
      return readIcs(file.toString('utf8'), zone);
    }
    case 'todoist': {
      const { readTodoistBackup, readTodoistCsv } = await import('./formats/todoist.js');
      if (isZip(file)) return readTodoistBackup(file, zone);
      const { year, month, day } = wallClockOf(source.now, zone);
      return readTodoistCsv(
        { name: source.name ?? 'Inbox.csv', text: file.toString('utf8'), made: { year, month, day } },
        zone,
      );
    }
  }
}
