/**
 * The limit: a bare node:http server that answers every request with the bytes the task service
 * answered for the scenario (status, headers, body as captured, compressed or not), from memory.
 * It reads each request body to its end first, as any server must. Run as its own process:
 * `node limit-server.js <port> <answer.json>`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
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

const server = createServer((request, response) => {
  request.resume();
  request.once('end', () => {
    response.writeHead(answer.status, headers);
    response.end(body);
  });
});
server.keepAliveTimeout = 10_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
