/**
 * The limit: a bare node:http server that answers every request with the bytes the task service
 * answered for the scenario (status, headers, body as captured, compressed or not), from memory.
 * It reads each request body to its end first, as any server must. Run as its own process:
 * `node limit-server.js <port> <answer.json> [hold]`; with `hold` it answers nothing but `/` (the
 * bench's check that it started) until it is stopped, as the service's waiting requests wait
 * (part W: what holding a request costs).
 */
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { z } from 'zod';

/** Headers a server sets per connection or per answer itself; everything else is replayed as captured. */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const answerSchema = z.object({
  status: z.number(),
  headers: z.array(z.tuple([z.string(), z.string()])),
  bodyBase64: z.string(),
});

const port = Number(process.argv[2]);
const answer = answerSchema.parse(JSON.parse(readFileSync(process.argv[3] ?? '', 'utf8')));
const body = Buffer.from(answer.bodyBase64, 'base64');
const headers: Record<string, string> = { 'content-length': String(body.length) };
for (const [name, value] of answer.headers) {
  if (!OWN_HEADERS.has(name.toLowerCase())) headers[name] = value;
}

const hold = process.argv[4] === 'hold';
const held = new Set<ServerResponse>();

function reply(response: ServerResponse): void {
  response.writeHead(answer.status, headers);
  response.end(body);
}

const server = createServer((request, response) => {
  request.resume();
  request.once('end', () => {
    if (!hold || request.url === '/') reply(response);
    else {
      held.add(response);
      response.once('close', () => held.delete(response));
    }
  });
});
server.keepAliveTimeout = 10_000;
// The service takes 4,096 connections per address; this one takes all that come.
server.maxConnections = Number.MAX_SAFE_INTEGER;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => {
  for (const response of held) reply(response);
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
