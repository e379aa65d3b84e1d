/**
 * The sender's delivery thread (http/webhooks/delivery-thread.ts) when a worker dies: its own runs
 * fail, and a run already handed to the next worker is that worker's alone to answer.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryThread, type RunRequest } from '../../src/http/webhooks/delivery-thread.js';

/** A worker that throws for a run of the hook 'crash' and answers any other run with one try. */
const WORKER = `import { parentPort } from 'node:worker_threads';
parentPort.on('message', (message) => {
  if (message.type !== 'run') return;
  if (message.run.hookKey === 'crash') throw new Error('the worker broke');
  const tried = [{ at: 1, answeredAt: 2, status: 204, error: null, durationMs: 0 }];
  parentPort.postMessage({ runId: message.run.runId, result: { tried } });
});
`;

function runOf(hookKey: string): RunRequest {
  return {
    hookKey,
    url: 'http://127.0.0.1:9/',
    address: '127.0.0.1',
    secret: 'whsec_test',
    clockLeadMicros: 0,
    startBeforeMs: Date.now() + 60_000,
    deliveries: [{ messageId: 'msg_1', body: '{}' }],
  };
}

describe('the delivery thread', () => {
  let dir: string;
  let workerFile: URL;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'delivery-thread-'));
    const file = path.join(dir, 'worker.mjs');
    await writeFile(file, WORKER);
    workerFile = pathToFileURL(file);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true });
  });

  it("fails the dead worker's runs, not those its successor took between the error and the exit", async () => {
    const thread = new DeliveryThread({ file: workerFile, data: null, readsOutbox: false });
    try {
      // The run handed on as soon as the first one failed: the dead worker has not exited yet.
      const next = await thread.run(runOf('crash')).then(
        () => undefined,
        (error: unknown) => ({ error, answer: thread.run(runOf('fine')) }),
      );
      expect(next?.error).toBeInstanceOf(Error);
      const tried = (await next?.answer)?.tried;
      expect(tried?.map((attempt) => attempt.status)).toEqual([204]);
    } finally {
      await thread.close();
    }
  });
});
