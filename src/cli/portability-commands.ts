import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from '../config/command.js';
import type { PortableAccount } from '../domain/portable.js';
import { nowMicros } from '../domain/time.js';
import { FormatError } from '../service/formats/account-json.js';
import { readPortableFile, writePortableFile } from '../service/portable-files.js';
import {
  ImportRefusedError,
  PortabilityService,
  type ChangeCounts,
  type ImportReport,
} from '../service/portability.js';
import type { Store } from '../store/store.js';
import { ProgressBar } from './progress-bar.js';
import { RefusedFileError } from './refused-file.js';

type ExportCommand = Extract<Command, { command: 'export' }>;
type ImportCommand = Extract<Command, { command: 'import' }>;

/** `task-service export <username>`: the file on standard output, a summary on standard error. */
export async function runExport(store: Store, command: ExportCommand): Promise<void> {
  const { account, data } = await new PortabilityService(store, nowMicros).exportAccount(command.username);
  const text = await writePortableFile(command.format, account, data, nowMicros());
  process.stdout.write(text);
  console.error(
    `exported ${account.username}: ${data.projects.length} projects, ${data.contexts.length} contexts, ` +
      `${data.tasks.length} tasks (${command.format})`,
  );
}

async function readImportFile(command: ImportCommand, zone: string): Promise<PortableAccount> {
  try {
    return await readPortableFile(command.format, await readFile(command.file), zone, {
      name: path.basename(command.file),
      now: nowMicros(),
    });
  } catch (error) {
    if (error instanceof FormatError)
      throw new RefusedFileError(`${command.file} cannot be imported: ${error.message}`);
    throw error;
  }
}

function describeCounts(what: string, counts: ChangeCounts, dryRun: boolean): string {
  const verb = dryRun ? 'would be ' : '';
  return `${what}: ${counts.created} ${verb}created, ${counts.updated} ${verb}updated, ${counts.unchanged} unchanged`;
}

function printReport(report: ImportReport): void {
  const prefix = report.dryRun ? 'dry run, nothing changed: ' : '';
  if (report.settingsChanged) console.log(`${prefix}settings ${report.dryRun ? 'would change' : 'changed'}`);
  console.log(`${prefix}${describeCounts('projects', report.projects, report.dryRun)}`);
  console.log(`${prefix}${describeCounts('contexts', report.contexts, report.dryRun)}`);
  console.log(`${prefix}${describeCounts('tasks', report.tasks, report.dryRun)}`);
  if (report.unmapped.length > 0) {
    console.log(`not mapped (${report.unmapped.length}), kept out of the import:`);
    for (const line of report.unmapped) console.log(`  ${line}`);
  }
}

/** `task-service import <username> <file>`: what changed (or would) on standard output. */
export async function runImport(store: Store, command: ImportCommand): Promise<void> {
  const service = new PortabilityService(store, nowMicros);
  // Dates without a zone (all-day ones, floating times) are the account's local ones.
  const data = await readImportFile(command, await service.zoneOf(command.username));
  const bar = new ProgressBar(command.dryRun ? 'import (dry run)' : 'import', process.stderr);
  const report = await service
    .importAccount(command.username, data, {
      dryRun: command.dryRun,
      onProgress: (done, total) => bar.update(done, total),
    })
    .catch((error: unknown) => {
      throw error instanceof ImportRefusedError ? new RefusedFileError(error.message) : error;
    });
  bar.finish();
  printReport(report);
}
