import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { autocannonMethod } from './autocannon-methods.js';
import type { LoadResult, LoadSpec, LoadTool } from './load.js';
import { runCommand } from './processes.js';

const WORKER = fileURLToPath(new URL('./autocannon-worker.js', import.meta.url));

const resultSchema = z.object({
  requests: z.number(),
  seconds: z.number(),
  p50Ms: z.number(),
  p99Ms: z.number(),
  socketErrors: z.number(),
  badStatus: z.number(),
});

let runs = 0;

/** autocannon (a devDependency), run from a worker process of its own: the fallback for wrk. */
export async function findAutocannon(): Promise<LoadTool | undefined> {
  try {
    const { createRequire } = await import('node:module');
    const manifest = z.object({ version: z.string() }).parse(createRequire(import.meta.url)('autocannon/package.json'));
    return {
      name: 'autocannon',
      version: manifest.version,
      supports: (method) => autocannonMethod(method) !== undefined,
      run: async (spec: LoadSpec): Promise<LoadResult> => {
        runs += 1;
        const { code, stdout, stderr } = await runCommand(process.execPath, [WORKER, JSON.stringify(spec), `r${runs}`]);
        const line = /^AUTOCANNON_RESULT (.*)$/m.exec(stdout)?.[1];
        if (code !== 0 || line === undefined) throw new Error(`autocannon failed (exit ${String(code)}): ${stderr || stdout}`);
        const result = resultSchema.parse(JSON.parse(line));
        return { ...result, requestsPerSecond: result.requests / result.seconds };
      },
    };
  } catch {
    return undefined;
  }
}
