import { readFile } from 'node:fs/promises';
import os from 'node:os';
import Database from 'better-sqlite3';
import { runCommand } from './processes.js';

export interface Machine {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryBytes: number;
  readonly os: string;
}

export async function describeMachine(): Promise<Machine> {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    const cpuinfo = await readFile('/proc/cpuinfo', 'utf8');
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpuModel;
  } catch {
    // not Linux: os.cpus() has it
  }
  return { cpuModel, cores: os.availableParallelism(), memoryBytes: os.totalmem(), os: `${os.type()} ${os.release()}` };
}

/** The SQLite library better-sqlite3 is built with (the one the service uses). */
export function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    return String(db.prepare('SELECT sqlite_version()').pluck().get());
  } finally {
    db.close();
  }
}

/** The commit measured, marked when the tree has changes not committed yet. */
export async function sourceRevision(): Promise<string> {
  const head = await runCommand('git', ['rev-parse', '--short', 'HEAD']);
  if (head.code !== 0) return 'unknown';
  const status = await runCommand('git', ['status', '--porcelain', '--untracked-files=no']);
  return `${head.stdout.trim()}${status.stdout.trim() === '' ? '' : ' with uncommitted changes'}`;
}
