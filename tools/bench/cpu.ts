import { readdir, readFile } from 'node:fs/promises';

/*
 * How much CPU other processes took while a load ran: the machine's busy time, less what the
 * server under test (and its companions, e.g. PostgreSQL's backends), the bench and the load tool
 * (a child of the bench, counted once reaped) used. Several people share the machine; a
 * measurement taken while something else was busy is marked instead of silently trusted.
 */

/** Linux reports CPU time in USER_HZ ticks, 100 a second on every common build. */
const TICKS_PER_SECOND = 100;

async function machineBusyTicks(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
  const [, user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).map(Number);
  return user + nice + system + irq + softirq + steal;
}

/** utime + stime of a process, and cutime + cstime of its children it has reaped; 0 when gone. */
async function processTicks(pid: number | 'self'): Promise<{ own: number; children: number }> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses: state is field 3.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const [utime = 0, stime = 0, cutime = 0, cstime = 0] = fields.slice(11, 15);
    return { own: utime + stime, children: cutime + cstime };
  } catch {
    return { own: 0, children: 0 };
  }
}

async function pidsNamed(name: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if ((await readFile(`/proc/${entry}/comm`, 'utf8')).trim() === name) pids.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}

interface Snapshot {
  /** Ticks the whole machine was busy. */
  readonly busy: number;
  /** Ticks of the server, its companions, the bench and the load tool. */
  readonly measured: number;
  readonly at: number;
}

async function snapshot(serverPid: number, companions: readonly number[]): Promise<Snapshot> {
  const bench = await processTicks('self');
  let measured = bench.own + bench.children + (await processTicks(serverPid)).own;
  for (const pid of companions) measured += (await processTicks(pid)).own;
  return { busy: await machineBusyTicks(), measured, at: Date.now() };
}

export class OtherLoad {
  private constructor(
    private readonly serverPid: number,
    private readonly companions: readonly number[],
    private readonly start: Snapshot,
  ) {}

  /** Starts watching; `companionName` names processes that work for the server (`postgres`). */
  static async start(serverPid: number, companionName: string | undefined): Promise<OtherLoad> {
    const companions = companionName === undefined ? [] : await pidsNamed(companionName);
    return new OtherLoad(serverPid, companions, await snapshot(serverPid, companions));
  }

  /** The average number of cores other processes kept busy since start (0 when none). */
  async stop(): Promise<number> {
    const end = await snapshot(this.serverPid, this.companions);
    const seconds = (end.at - this.start.at) / 1000;
    const others = end.busy - this.start.busy - (end.measured - this.start.measured);
    return seconds > 0 ? Math.max(0, others / TICKS_PER_SECOND / seconds) : 0;
  }
}
