import type { Account } from '../domain/account.js';
import type { ExportFormat, ImportFormat, PortableAccount } from '../domain/portable.js';
import type { Micros } from '../domain/time.js';
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

/**
 * A file's records, read in `zone` where the file's dates have none (all-day dates, floating
 * times). Throws FormatError, saying why, when the file is not of its format.
 */
export async function readPortableFile(format: ImportFormat, file: Buffer, zone: string): Promise<PortableAccount> {
  switch (format) {
    case 'json':
      return readAccountJson(file.toString('utf8'));
    case 'ics': {
      const { readIcs } = await import('./formats/ics.js');
      return readIcs(file.toString('utf8'), zone);
    }
    case 'todoist': {
      const { readTodoistBackup } = await import('./formats/todoist.js');
      return readTodoistBackup(file, zone);
    }
  }
}
