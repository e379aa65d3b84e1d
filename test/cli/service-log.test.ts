import { describe, expect, it } from 'vitest';
import type { ServeConfig } from '../../src/config/command.js';
import { parseCommand } from '../../src/config/parse.js';
import { chosenLogFormat, prettyMessage } from '../../src/service-log.js';

function serveConfig(argv: readonly string[], env: Record<string, string> = {}): ServeConfig {
  const command = parseCommand(['serve', ...argv], env);
  if (command.command !== 'serve') throw new Error('not serve');
  return command;
}

describe('the log format', () => {
  it('is pretty on a terminal and JSON elsewhere, unless --log-format (or its variable) says', () => {
    expect(chosenLogFormat(serveConfig([]).logFormat, true)).toBe('pretty');
    expect(chosenLogFormat(serveConfig([]).logFormat, false)).toBe('json');
    expect(chosenLogFormat(serveConfig(['--log-format', 'json']).logFormat, true)).toBe('json');
    expect(chosenLogFormat(serveConfig(['--log-format', 'pretty']).logFormat, false)).toBe('pretty');
    expect(chosenLogFormat(serveConfig([], { TASK_SERVICE_LOG_FORMAT: 'json' }).logFormat, true)).toBe('json');
    expect(() => serveConfig(['--log-format', 'yaml'])).toThrow(/--log-format must be one of json, pretty/);
  });

  it('writes a response as method, path, status, retcode and time, in one short line', () => {
    const base = { level: 30, time: 0, pid: 7, msg: 'response', method: 'POST', path: '/v1/tasks', status: 401 };
    expect(prettyMessage({ ...base, retcode: 'E401', us: 1234 })).toBe('POST /v1/tasks 401 E401 1.2 ms');
    expect(prettyMessage({ ...base, status: 200, us: 250, account: 3 })).toBe('POST /v1/tasks 200 0.3 ms account 3');
  });

  it('writes other lines as their message, then their fields', () => {
    expect(prettyMessage({ level: 30, pid: 7, msg: 'purged deleted records past retention', purged: 4 })).toBe(
      'purged deleted records past retention purged=4',
    );
    expect(prettyMessage({ level: 50, pid: 7, msg: 'unexpected error', err: new Error('boom'), path: '/v1' })).toBe(
      'unexpected error err=boom path=/v1',
    );
    expect(
      prettyMessage({
        msg: 'task-service listening',
        pid: 7,
        urls: ['https://127.0.0.1:8443', 'https://[::1]:8443'],
        address: 'https://127.0.0.1:8443',
        engine: 'postgres',
        tls: true,
        maintenance: false,
        stop: 'Ctrl-C, or kill -TERM 7',
      }),
    ).toBe(
      'task-service listening on https://127.0.0.1:8443, https://[::1]:8443 — stop with Ctrl-C (pid 7) engine=postgres',
    );
  });
});
