import { readdir, readFile } from 'node:fs/promises';

/*
 * How much CPU other processes took while a load ran: the machine's busy time, less what the
 * server under test (and its companions, e.g. PostgreSQL's backends), the bench and the load tool
 * (a child of the bench, counted once reaped) used. Several people share the machine; a
 * measurement taken while something else was busy is marked instead of silently trusted.
 */

/** Linux reports CPU time in USER_HZ ticks, 100 a second on every common build. */
export const TICKS_PER_SECOND = 100;

export async function machineBusyTicks(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
  const [, user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).map(Number);
  return user + nice + system + irq + softirq + steal;
}

/**
 * utime + stime, and cutime + cstime (reaped children), of a /proc stat file: a process's
 * (/proc/<pid>/stat) or a thread's (/proc/<pid>/task/<tid>/stat); 0 when gone.
 */
export async function statTicks(file: string): Promise<{ own: number; children: number }> {
  try {
    const stat = await readFile(file, 'utf8');
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

function processTicks(pid: number | 'self'): Promise<{ own: number; children: number }> {
  return statTicks(`/proc/${pid}/stat`);
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
  /** Ticks of the bench and the load tool. */
  readonly bench: number;
  /** Ticks of each server and companion process, 0 once it has ended. */
  readonly watched: readonly number[];
  readonly at: number;
}

/** Which ticks of the companions count as the work under test. */
export type CompanionTicks = 'own' | 'own and reaped children';

async function snapshot(
  serverPids: readonly number[],
  companions: readonly number[],
  companionTicks: CompanionTicks,
): Promise<Snapshot> {
  const bench = await processTicks('self');
  const watched: number[] = [];
  for (const pid of serverPids) watched.push((await processTicks(pid)).own);
  for (const pid of companions) {
    const ticks = await processTicks(pid);
    watched.push(ticks.own + (companionTicks === 'own' ? 0 : ticks.children));
  }
  return { busy: await machineBusyTicks(), bench: bench.own + bench.children, watched, at: Date.now() };
}

/**
 * Ticks of the work under test between two snapshots. A process that ended meanwhile reads 0 at
 * the end: it counts as 0, not as minus its whole life, which would make others look busier.
 */
function measuredTicks(start: Snapshot, end: Snapshot): number {
  let ticks = end.bench - start.bench;
  for (const [index, before] of start.watched.entries()) ticks += Math.max(0, (end.watched[index] ?? 0) - before);
  return ticks;
}

export class OtherLoad {
  private constructor(
    private readonly serverPids: readonly number[],
    private readonly companions: readonly number[],
    private readonly companionTicks: CompanionTicks,
    private readonly start: Snapshot,
  ) {}

  /**
   * Starts watching; `serverPids` are the processes under test (none for pgbench, several when a
   * load is spread over processes), `companionName` names processes that work for them (`postgres`).
   * Companions started after this call are not seen; `own and reaped children` counts those that
   * also ended, through their parent (pgbench's backends, reaped by the postmaster), at the price of
   * counting other short-lived backends that ended meanwhile as work under test too.
   */
  static async start(
    serverPids: readonly number[],
    companionName: string | undefined,
    companionTicks: CompanionTicks = 'own',
  ): Promise<OtherLoad> {
    const companions = companionName === undefined ? [] : await pidsNamed(companionName);
    return new OtherLoad(
      serverPids,
      companions,
      companionTicks,
      await snapshot(serverPids, companions, companionTicks),
    );
  }

  /** The average number of cores other processes kept busy since start (0 when none). */
  async stop(): Promise<number> {
    const end = await snapshot(this.serverPids, this.companions, this.companionTicks);
    const seconds = (end.at - this.start.at) / 1000;
    const others = end.busy - this.start.busy - measuredTicks(this.start, end);
    return seconds > 0 ? Math.max(0, others / TICKS_PER_SECOND / seconds) : 0;
  }
}
