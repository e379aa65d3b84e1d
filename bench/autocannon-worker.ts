/**
 * The fallback load generator when wrk is missing: autocannon in a process of its own (so it
 * does not share the bench's event loop), reading a LoadSpec as JSON from argv[2] and writing one
 * JSON line with the result. `{n}` tokens get the run tag from argv[3] and a counter.
 */
import autocannon from 'autocannon';
import { z } from 'zod';
import { autocannonMethod, type AutocannonMethod } from './autocannon-methods.js';
import { UNIQUE_MARK } from './load.js';

function method(name: string): AutocannonMethod {
  const found = autocannonMethod(name);
  if (found === undefined) throw new Error(`autocannon cannot send ${name} requests`);
  return found;
}

const specSchema = z.object({
  port: z.number(),
  requests: z.array(
    z.object({ method: z.string(), path: z.string(), headers: z.record(z.string(), z.string()), body: z.string().optional() }),
  ),
  unique: z.boolean(),
  seconds: z.number(),
  connections: z.number(),
  threads: z.number(),
  timeoutSeconds: z.number(),
});

const spec = specSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
const runTag = process.argv[3] ?? 'r';
let counter = 0;

const requests = spec.requests.map((request) => {
  const base = { method: method(request.method), path: request.path, headers: request.headers, body: request.body };
  if (!spec.unique) return base;
  return {
    ...base,
    setupRequest: (prepared: autocannon.Request): autocannon.Request => {
      counter += 1;
      const token = `${runTag}a${counter}`;
      return {
        ...prepared,
        path: request.path.replaceAll(UNIQUE_MARK, token),
        ...(request.body === undefined ? {} : { body: request.body.replaceAll(UNIQUE_MARK, token) }),
      };
    },
  };
});

const result = await autocannon({
  url: `http://127.0.0.1:${spec.port}`,
  connections: spec.connections,
  duration: spec.seconds,
  timeout: spec.timeoutSeconds,
  requests,
});
process.stdout.write(
  `AUTOCANNON_RESULT ${JSON.stringify({
    requests: result.requests.total,
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    socketErrors: result.errors,
    badStatus: result['4xx'] + result['5xx'],
  })}\n`,
);
