import { request } from 'node:http';
import { OtherLoad } from './cpu.js';
import { PeakMemory } from './memory.js';
import type { Server } from './servers.js';

export interface StreamedList {
  readonly entries: number;
  readonly bytes: number;
  readonly seconds: number;
  /** The server's peak resident memory while it sent the answer. */
  readonly peakRssBytes: number;
  /** Cores other processes kept busy meanwhile (see cpu.ts). */
  readonly otherCores: number;
}

const ENTRY_START = Buffer.from('{"id":');
const END = '"has_more":false}';

function occurrences(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(ENTRY_START); at !== -1; at = bytes.indexOf(ENTRY_START, at + 1)) count += 1;
  return count;
}

/** The last `length` bytes of what came before followed by `chunk`, copied out. */
function lastBytes(before: Buffer, chunk: Buffer, length: number): Buffer {
  const source = chunk.length >= length ? chunk : Buffer.concat([before, chunk]);
  return Buffer.from(source.subarray(Math.max(0, source.length - length)));
}

/**
 * F: one client lists a whole account with no `limit`, reading as fast as it can and keeping
 * nothing, while the server's memory is watched. Entries are counted by the `{"id":` that opens
 * each one (strings are HTML-escaped on the wire, so a raw `"` never occurs inside a value).
 */
export async function listEverything(server: Server, token: string): Promise<StreamedList> {
  const memory = await PeakMemory.start(server.child.pid, 50);
  const others = await OtherLoad.start([server.child.pid], server.companion);
  const started = process.hrtime.bigint();
  const { entries, bytes, tail } = await new Promise<{ entries: number; bytes: number; tail: string }>(
    (resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/v1/tasks',
          headers: { authorization: `OAuth ${token}` },
          agent: false,
        },
        (res) => {
          if (res.statusCode !== 200) {
            reject(new Error(`listing everything answered ${String(res.statusCode)}`));
            res.resume();
            return;
          }
          let count = 0;
          let total = 0;
          let carry: Buffer = Buffer.alloc(0);
          let last: Buffer = Buffer.alloc(0);
          res.on('data', (chunk: Buffer) => {
            total += chunk.length;
            // Matches across the seam with the previous chunk, then matches inside this chunk.
            count += occurrences(Buffer.concat([carry, chunk.subarray(0, ENTRY_START.length - 1)]));
            count += occurrences(chunk);
            carry = lastBytes(carry, chunk, ENTRY_START.length - 1);
            last = lastBytes(last, chunk, END.length);
          });
          res.once('error', reject);
          res.once('end', () => resolve({ entries: count, bytes: total, tail: last.toString('latin1') }));
        },
      );
      req.once('error', reject);
      req.end();
    },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const otherCores = await others.stop();
  const peakRssBytes = await memory.stop();
  if (!tail.endsWith(END)) throw new Error(`the full list did not end with ${END}: …${tail}`);
  return { entries, bytes, seconds, peakRssBytes, otherCores };
}
