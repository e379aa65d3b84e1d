/**
 * The service's log: JSON lines (pino) for journald, containers and files, or short lines for a
 * person watching a terminal (pino-pretty, in this process). Every line is the same record in
 * both; only how it is written differs.
 */
import pino, { type Logger } from 'pino';
import type { ServeConfig } from './config/command.js';

export type LogFormat = 'json' | 'pretty';

/** The format asked for, else pretty when standard output is a terminal (a person reads it), else JSON. */
export function chosenLogFormat(asked: LogFormat | null, stdoutIsTerminal: boolean): LogFormat {
  return asked ?? (stdoutIsTerminal ? 'pretty' : 'json');
}

/** The fields every line has, which a pretty line shows in its own way or not at all. */
const FRAME_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

function shown(value: unknown): string {
  if (typeof value === 'string') return /\s/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (value instanceof Object && 'message' in value && typeof value.message === 'string') return value.message;
  return JSON.stringify(value);
}

/** The rest of a line's fields, `name=value`, after its message. */
function withFields(message: string, log: Readonly<Record<string, unknown>>, skip: readonly string[] = []): string {
  const fields = Object.entries(log)
    .filter(([name, value]) => !FRAME_FIELDS.has(name) && !skip.includes(name) && value !== undefined)
    .map(([name, value]) => `${name}=${shown(value)}`);
  return [message, ...fields].join(' ');
}

/** A log record as one short line for a person: the message first, then only what it lacks. */
export function prettyMessage(log: Readonly<Record<string, unknown>>): string {
  const message = typeof log['msg'] === 'string' ? log['msg'] : '';
  if (message === 'response') {
    const micros = typeof log['us'] === 'number' ? log['us'] : 0;
    const retcode = typeof log['retcode'] === 'string' ? ` ${log['retcode']}` : '';
    const account = log['account'] === undefined ? '' : ` account ${shown(log['account'])}`;
    return `${shown(log['method'])} ${shown(log['path'])} ${shown(log['status'])}${retcode} ${(micros / 1000).toFixed(1)} ms${account}`;
  }
  if (message === 'task-service listening') {
    const urls = Array.isArray(log['urls']) ? log['urls'].map(shown).join(', ') : shown(log['address']);
    const head = `task-service listening on ${urls} — stop with Ctrl-C (pid ${shown(log['pid'])})`;
    return withFields(head, log, [
      'address',
      'urls',
      'stop',
      'tls',
      ...(log['maintenance'] === true ? [] : ['maintenance']),
    ]);
  }
  return withFields(message, log);
}

/**
 * The logger of `serve`. JSON lines are written asynchronously: lines that arrive while one
 * write is under way go out together, so a busy server does not make a system call per
 * response; pending lines are flushed on exit. pino-pretty is loaded only for a pretty log.
 */
export async function serviceLogger(level: ServeConfig['logLevel'], format: LogFormat): Promise<Logger> {
  const options = { level, base: { pid: process.pid } };
  if (format === 'json') return pino(options, pino.destination({ dest: 1, sync: false }));
  const { default: pretty } = await import('pino-pretty');
  return pino(
    options,
    pretty({
      destination: 1,
      sync: true,
      translateTime: 'SYS:HH:MM:ss',
      // The pid is said once, in the listening line; each line is its message alone.
      ignore: 'pid,hostname',
      hideObject: true,
      messageFormat: (log) => prettyMessage(log),
    }),
  );
}
