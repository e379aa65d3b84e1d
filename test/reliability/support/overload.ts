/**
 * Runs the overload clients (load-client.ts) in a child process: the file is transpiled as it is
 * (it imports Node built-ins only) and run with `node`, so 2,000 connections do not share the
 * test runner's event loop.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import type { LoadPlan, LoadReport } from './load-client.js';

const SOURCE = new URL('./load-client.ts', import.meta.url);

/** Writes the client as JavaScript into `dir` and returns its path. */
async function buildClient(dir: string): Promise<string> {
  const source = await readFile(SOURCE, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: 'load-client.ts',
  });
  const file = path.join(dir, 'load-client.mjs');
  await writeFile(file, outputText);
  return file;
}

function isLoadReport(value: unknown): value is LoadReport {
  return typeof value === 'object' && value !== null && 'requests' in value && 'anomalies' in value;
}

/** Runs `plan` in a child process; resolves with its report (the child's last line of output). */
export async function runLoadClients(dir: string, plan: LoadPlan, timeoutMs: number): Promise<LoadReport> {
  const script = await buildClient(dir);
  const child = spawn(process.execPath, ['--max-old-space-size=1024', script, JSON.stringify(plan)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  const last = stdout.trim().split('\n').pop() ?? '';
  let report: unknown;
  try {
    report = JSON.parse(last);
  } catch {
    throw new Error(`the load clients exited (${String(code)}) without a report\n${stdout}\n${stderr}`);
  }
  if (!isLoadReport(report)) throw new Error(`not a load report: ${last}`);
  return report;
}
