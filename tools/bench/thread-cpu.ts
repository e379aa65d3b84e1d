import { readdir, readFile } from 'node:fs/promises';

/*
 * Where a server's CPU went during a load, thread by thread: the request thread (the process's
 * main thread, which answers every request) apart from the rest (the delivery thread, libuv's
 * pool, V8's helpers), with the bench process (the load's driver and part W's receiver) and the
 * whole machine beside them. Part W tells by it whether a slower load was short of a core or
 * spent more per request.
 */

/** Linux reports CPU time in USER_HZ ticks, 100 a second on every common build. */
const TICKS_PER_SECOND = 100;

/** Average cores kept busy over a stretch. */
export interface CoresUsed {
  /** The server's main thread. */
  readonly requestThread: number;
  /** The server's other threads together. */
  readonly otherThreads: number;
  /** The bench process itself (it hosts part W's receiver). */
  readonly bench: number;
  /** The machine, every process and the kernel's own work. */
  readonly machine: number;
}

interface Ticks {
  readonly main: number;
  readonly others: number;
  readonly bench: number;
  readonly machine: number;
  readonly at: number;
}

/** utime + stime of a /proc stat line; 0 when it cannot be read (the thread ended). */
async function statTicks(file: string): Promise<number> {
  try {
    const stat = await readFile(file, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses: state is field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  } catch {
    return 0;
  }
}

async function machineTicks(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
  const [, user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).map(Number);
  return user + nice + system + irq + softirq + steal;
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
    const ticks = await statTicks(`/proc/${pid}/task/${tid}/stat`);
    if (tid === String(pid)) main += ticks;
    else others += ticks;
  }
  return { main, others, bench: await statTicks('/proc/self/stat'), machine: await machineTicks(), at: Date.now() };
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
      otherThreads: cores(this.start.others, end.others),
      bench: cores(this.start.bench, end.bench),
      machine: cores(this.start.machine, end.machine),
    };
  }
}
