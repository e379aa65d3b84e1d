import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Micros } from '../../domain/time.js';
import type { StoreBackups } from '../backups.js';
import { backupSqliteFile } from './backup.js';
import {
  NEWEST_SCHEMA_VERSION,
  prepareRestoredCopy,
  readReplacedHeads,
  sqliteFileInUse,
  swapInRestoredCopy,
} from './restore.js';

/** A file name for the replaced store that sorts by time and names no local zone. */
function keptName(live: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${live}.replaced-${stamp}`;
}

/** Backup and restore of the embedded store whose file is `live`. */
export function sqliteBackups(live: string): StoreBackups {
  return {
    where: live,
    exists: () => existsSync(live),
    inUse: () => sqliteFileInUse(live),
    backup: (destination, onProgress) => backupSqliteFile(live, destination, onProgress),
    restore(backup: string, now: Micros) {
      // Restoring onto a new machine: the data folder may not exist yet.
      mkdirSync(path.dirname(live), { recursive: true });
      const copy = `${live}.restoring-${process.pid}`;
      const replaced = readReplacedHeads(live);
      const prepared = prepareRestoredCopy(backup, copy, replaced, now);
      const keptAs = existsSync(live) ? keptName(live, new Date(now / 1000)) : null;
      swapInRestoredCopy(live, copy, keptAs ?? `${live}.replaced`);
      return {
        ...prepared,
        schemaVersion: NEWEST_SCHEMA_VERSION,
        keptAs,
        replacedUnreadable: replaced.readable ? null : replaced.reason,
      };
    },
  };
}
