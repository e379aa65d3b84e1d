import { readdir, readFile } from 'node:fs/promises';
import { machineBusyTicks, statTicks, TICKS_PER_SECOND } from './cpu.js';

/*
 * Where a server's CPU went during a load, thread by thread: the request thread (the process's
 * main thread, which answers every request) apart from the rest (the delivery thread, libuv's
 * pool, V8's helpers), with the bench process (the load's driver and part W's receiver) and the
 * whole machine beside them, and how long the request thread was ready to run but waited for a
 * core. Part W tells by it whether a slower load was short of a core or spent more per request.
 */

/** Average cores kept busy over a stretch. */
export interface CoresUsed {
  /** The server's main thread. */
  readonly requestThread: number;
  /**
   * The time the main thread was ready to run but every core was taken, in cores too (Linux's
   * schedstat; null where the kernel does not keep it).
   */
  readonly requestThreadWaiting: number | null;
  /** The server's other threads together. */
  readonly otherThreads: number;
  /** The bench process itself (it hosts part W's receiver). */
  readonly bench: number;
  /** The machine, every process and the kernel's own work. */
  readonly machine: number;
}

interface Ticks {
  readonly main: number;
  /** ns the main thread has waited on a run queue (schedstat's second field), when known. */
  readonly mainWaitedNs: number | null;
  readonly others: number;
  readonly bench: number;
  readonly machine: number;
  readonly at: number;
}

async function ticksOf(pid: number): Promise<Ticks> {
  let main = 0;
  let others = 0;
  let threads: string[] = [];
  try {
    threads = await readdir(`/proc/${pid}/task`);
  } catch {
    // the server ended: nothing of it counts
  }
  for (const tid of threads) {
    const ticks = (await statTicks(`/proc/${pid}/task/${tid}/stat`)).own;
    if (tid === String(pid)) main += ticks;
    else others += ticks;
  }
  const bench = (await statTicks('/proc/self/stat')).own;
  return { main, mainWaitedNs: await waitedNs(pid), others, bench, machine: await machineBusyTicks(), at: Date.now() };
}

/** How long the process's main thread has waited for a core so far, in ns (null where not kept). */
async function waitedNs(pid: number): Promise<number | null> {
  try {
    const waited = Number((await readFile(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')).split(' ')[1]);
    return Number.isFinite(waited) ? waited : null;
  } catch {
    return null;
  }
}

/**
 * Watches one server process from `start` to `stop`. A thread that ended meanwhile drops out of
 * the sum at the end, which can only make `otherThreads` read low, never high.
 */
export class ThreadCpu {
  private constructor(
    private readonly pid: number,
    private readonly start: Ticks,
  ) {}

  static async start(pid: number): Promise<ThreadCpu> {
    return new ThreadCpu(pid, await ticksOf(pid));
  }

  async stop(): Promise<CoresUsed> {
    const end = await ticksOf(this.pid);
    const seconds = Math.max(0.001, (end.at - this.start.at) / 1000);
    const cores = (from: number, to: number): number => Math.max(0, to - from) / TICKS_PER_SECOND / seconds;
    return {
      requestThread: cores(this.start.main, end.main),
      requestThreadWaiting:
        this.start.mainWaitedNs === null || end.mainWaitedNs === null
          ? null
          : Math.max(0, end.mainWaitedNs - this.start.mainWaitedNs) / 1e9 / seconds,
      otherThreads: cores(this.start.others, end.others),
      bench: cores(this.start.bench, end.bench),
      machine: cores(this.start.machine, end.machine),
    };
  }
}
