/** Progress lines on stderr, each with the time since the bench started; stdout stays for the table. */
const startedAt = Date.now();

export function elapsedSeconds(): number {
  return (Date.now() - startedAt) / 1000;
}

export function progress(message: string): void {
  process.stderr.write(`[bench ${elapsedSeconds().toFixed(1).padStart(6)} s] ${message}\n`);
}
