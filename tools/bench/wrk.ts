import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { RequestSpec } from './http-client.js';
import { UNIQUE_MARK, type LoadResult, type LoadSpec, type LoadTool } from './load.js';
import { runCommand } from './processes.js';

/** A Lua string literal holding exactly these bytes (decimal escapes for everything but printable ASCII). */
function luaString(text: string): string {
  let literal = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    const plain = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
    // Always three digits: a shorter escape would run into a digit that follows it.
    literal += plain ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
  }
  return `${literal}"`;
}

function luaRequest(spec: RequestSpec): string {
  const headers = Object.entries(spec.headers)
    .map(([name, value]) => `[${luaString(name)}] = ${luaString(value)}`)
    .join(', ');
  const body = spec.body === undefined ? 'nil' : luaString(spec.body);
  return `{ method = ${luaString(spec.method)}, path = ${luaString(spec.path)}, headers = { ${headers} }, body = ${body} }`;
}

/** Prints the numbers the bench reads, as one JSON line, when wrk is done. */
const DONE = `
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"socket_errors":%d,"bad_status":%d,"p50_us":%d,"p99_us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
`;

/**
 * One request, always the same: set on wrk's globals and no request() function, so wrk formats
 * it once and sends it as it is (no Lua call per request: the limit server measures at its fastest).
 */
function staticScript(spec: RequestSpec): string {
  const headers = Object.entries(spec.headers)
    .map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`)
    .join('\n');
  return `-- written by the task-service bench for one run; not kept
wrk.method = ${luaString(spec.method)}
wrk.path = ${luaString(spec.path)}
${headers}
${spec.body === undefined ? '' : `wrk.body = ${luaString(spec.body)}`}
${DONE}`;
}

/**
 * Requests in turn, `{n}` made unique per request when asked (a per-thread prefix set in setup(),
 * then a counter). Each thread starts at another place in the list, so that threads sending one
 * request per account do not all write to the same account at once.
 */
function dynamicScript(spec: LoadSpec, runTag: string): string {
  const stride = Math.floor(spec.requests.length / spec.threads);
  return `-- written by the task-service bench for one run; not kept
local requests = { ${spec.requests.map(luaRequest).join(',\n  ')} }
local unique = ${spec.unique ? 'true' : 'false'}
local mark = ${luaString(UNIQUE_MARK)}
local threads = 0
local formatted = {}
local index = 0
local counter = 0

function setup(thread)
  threads = threads + 1
  thread:set("prefix", ${luaString(runTag)} .. "w" .. threads .. "n")
  thread:set("start", (threads - 1) * ${stride})
end

function init(args)
  index = start
  for i, r in ipairs(requests) do
    formatted[i] = wrk.format(r.method, r.path, r.headers, r.body)
  end
end

local function replace(text, token)
  if text == nil then return nil end
  local start, stop = string.find(text, mark, 1, true)
  while start do
    text = string.sub(text, 1, start - 1) .. token .. string.sub(text, stop + 1)
    start, stop = string.find(text, mark, start + #token, true)
  end
  return text
end

function request()
  index = index % #requests + 1
  if not unique then return formatted[index] end
  counter = counter + 1
  local token = prefix .. counter
  local r = requests[index]
  return wrk.format(r.method, replace(r.path, token), r.headers, replace(r.body, token))
end
${DONE}`;
}

/** The wrk script of one load; `runTag` keeps the unique tokens of different runs apart. */
export function wrkScript(spec: LoadSpec, runTag: string): string {
  const [only, ...others] = spec.requests;
  return only !== undefined && others.length === 0 && !spec.unique ? staticScript(only) : dynamicScript(spec, runTag);
}

const resultSchema = z.object({
  requests: z.number(),
  duration_us: z.number(),
  socket_errors: z.number(),
  bad_status: z.number(),
  p50_us: z.number(),
  p99_us: z.number(),
});

let scripts = 0;

/** wrk from the system (Debian package `wrk`), or undefined when it is not installed. */
export async function findWrk(): Promise<LoadTool | undefined> {
  const probe = await runCommand('wrk', ['-v']);
  if (probe.code === -1) return undefined;
  const version = /wrk\s+(\S+)/.exec(probe.stdout + probe.stderr)?.[1] ?? 'unknown';
  return {
    name: 'wrk',
    version,
    run: async (spec: LoadSpec, scratchDir: string): Promise<LoadResult> => {
      scripts += 1;
      const script = path.join(scratchDir, `load-${scripts}.lua`);
      // The run number is part of every unique token: a warm-up and the measured run never collide.
      await writeFile(script, wrkScript(spec, `r${scripts}`));
      const args = [
        `-t${spec.threads}`,
        `-c${spec.connections}`,
        `-d${spec.seconds}s`,
        `--timeout`,
        `${spec.timeoutSeconds}s`,
        '-s',
        script,
        `http://127.0.0.1:${spec.port}/`,
      ];
      const { code, stdout, stderr } = await runCommand('wrk', args);
      const line = /^WRK_RESULT (.*)$/m.exec(stdout)?.[1];
      if (code !== 0 || line === undefined) throw new Error(`wrk failed (exit ${String(code)}): ${stderr || stdout}`);
      const result = resultSchema.parse(JSON.parse(line));
      const seconds = result.duration_us / 1e6;
      return {
        requests: result.requests,
        seconds,
        requestsPerSecond: result.requests / seconds,
        p50Ms: result.p50_us / 1000,
        p99Ms: result.p99_us / 1000,
        socketErrors: result.socket_errors,
        badStatus: result.bad_status,
      };
    },
  };
}
