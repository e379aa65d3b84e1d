import type { ServeProcess } from '../../e2e/support/processes.js';

/** What a `serve` process logged while a test loaded it: counted as it comes, not kept. */
export interface LogWatch {
  readonly lines: () => number;
  /** Responses logged, by status. */
  readonly statuses: () => Readonly<Record<string, number>>;
  /** Lines at level error or fatal (pino 50, 60), e.g. "unexpected error": the first few. */
  readonly errors: () => readonly string[];
  /** Lines at level warn (pino 40), e.g. "store unavailable". */
  readonly warnings: () => number;
}

/** The numeric field `name` of a parsed log line, if it has one. */
function numberField(line: unknown, name: string): number | undefined {
  if (typeof line !== 'object' || line === null || !(name in line)) return undefined;
  const value: unknown = Reflect.get(line, name);
  return typeof value === 'number' ? value : undefined;
}

/**
 * Replaces the accumulating stdout listener of the e2e `startServe` (which keeps and re-splits
 * everything written) by one that reads each line once: under load the service logs thousands of
 * lines a second, and the test process must not spend its time, or stall the pipe, keeping them.
 */
export function watchLog(server: ServeProcess): LogWatch {
  const stdout = server.child.stdout;
  if (stdout === null) throw new Error('serve was started without a stdout pipe');
  stdout.removeAllListeners('data');
  let lines = 0;
  let partial = '';
  const statuses: Record<string, number> = {};
  const errors: string[] = [];
  let warnings = 0;
  stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      if (line.trim() === '') continue;
      lines += 1;
      let fields: unknown;
      try {
        fields = JSON.parse(line);
      } catch {
        if (errors.length < 10) errors.push(`not a log line: ${line.slice(0, 300)}`);
        continue;
      }
      const status = numberField(fields, 'status');
      if (status !== undefined) statuses[status] = (statuses[status] ?? 0) + 1;
      const level = numberField(fields, 'level') ?? 0;
      if (level >= 50 && errors.length < 10) errors.push(line.slice(0, 500));
      if (level === 40) warnings += 1;
    }
  });
  return { lines: () => lines, statuses: () => statuses, errors: () => errors, warnings: () => warnings };
}
