import { readFile, writeFile } from 'node:fs/promises';

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM: reported in kB), or undefined when unreadable. */
async function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Watches one process's peak resident memory over a stretch of time. Writing 5 to
 * /proc/<pid>/clear_refs resets its high-water mark (VmHWM) to the current RSS (Linux 4.0+), so the
 * mark read at the end is the peak of just this stretch. VmRSS is sampled meanwhile as well, in
 * case the reset is not allowed; the larger of the two is the answer.
 */
export class PeakMemory {
  #sampled = 0;
  #timer: NodeJS.Timeout | undefined;
  #resetWorked = false;

  private constructor(private readonly pid: number) {}

  static async start(pid: number, sampleEveryMs = 100): Promise<PeakMemory> {
    const watch = new PeakMemory(pid);
    try {
      await writeFile(`/proc/${pid}/clear_refs`, '5');
      watch.#resetWorked = true;
    } catch {
      watch.#resetWorked = false;
    }
    await watch.#sample();
    watch.#timer = setInterval(() => void watch.#sample(), sampleEveryMs);
    return watch;
  }

  async #sample(): Promise<void> {
    const rss = await statusBytes(this.pid, 'VmRSS');
    if (rss !== undefined && rss > this.#sampled) this.#sampled = rss;
  }

  /** Stops watching and answers the peak in bytes. */
  async stop(): Promise<number> {
    clearInterval(this.#timer);
    await this.#sample();
    const mark = this.#resetWorked ? await statusBytes(this.pid, 'VmHWM') : undefined;
    return Math.max(this.#sampled, mark ?? 0);
  }
}
