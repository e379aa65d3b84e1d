/**
 * Runs the victim (victim-client.ts) in a child process, transpiled as it is (it imports Node
 * built-ins only), and reads the server's memory from /proc.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import type { VictimPlan, VictimReport } from './victim-client.js';

export type { VictimReport } from './victim-client.js';

const SOURCE = new URL('./victim-client.ts', import.meta.url);

export interface Victim {
  stop(): Promise<VictimReport>;
}

function isVictimReport(value: unknown): value is VictimReport {
  return typeof value === 'object' && value !== null && 'reads' in value && 'p99Ms' in value && 'written' in value;
}

/** Starts the victim polling; `stop` ends it and resolves with its report. */
export async function startVictim(dir: string, plan: VictimPlan): Promise<Victim> {
  const { outputText } = ts.transpileModule(await readFile(SOURCE, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: 'victim-client.ts',
  });
  const script = path.join(dir, 'victim-client.mjs');
  await writeFile(script, outputText);
  const child = spawn(process.execPath, [script, JSON.stringify(plan)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    async stop() {
      child.stdin.end('stop\n');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await closed;
      clearTimeout(timer);
      const last = stdout.trim().split('\n').pop() ?? '';
      let report: unknown;
      try {
        report = JSON.parse(last);
      } catch {
        throw new Error(`the victim exited (${String(code)}) without a report\n${stdout}\n${stderr}`);
      }
      if (!isVictimReport(report)) throw new Error(`not a victim report: ${last}`);
      return report;
    },
  };
}

/** Peak and current resident memory of a process, in MB (Linux: /proc/<pid>/status). */
export function memoryOf(pid: number): { peakMb: number; nowMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMb: Math.round(kb('VmHWM') / 1024), nowMb: Math.round(kb('VmRSS') / 1024) };
}
