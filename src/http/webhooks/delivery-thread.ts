import { Worker } from 'node:worker_threads';
import type { DeliveryRun, RunDone, ToDeliveryThread, TriedDelivery } from './delivery-protocol.js';

interface Waiting {
  readonly resolve: (tried: readonly TriedDelivery[]) => void;
  readonly reject: (error: Error) => void;
}

interface RunningWorker {
  readonly worker: Worker;
  /** Its runs waiting for their tries, by run id. */
  readonly waiting: Map<number, Waiting>;
}

/**
 * The sender's side of its delivery thread (delivery-worker.ts): hands it runs and gets their
 * tries back. Started with the first run; if it dies, its runs fail (the sender retries them as
 * any failed delivery) and the next run starts another.
 */
export class DeliveryThread {
  /**
   * The worker and its runs waiting for their tries: a worker that dies fails its own runs, not
   * those a successor started between its `error` and its `exit` took.
   */
  #current: RunningWorker | undefined;
  #nextRunId = 1;

  /** `workerFile`: the compiled delivery-worker.js. */
  constructor(private readonly workerFile: URL) {}

  run(run: Omit<DeliveryRun, 'runId'>): Promise<readonly TriedDelivery[]> {
    const { worker, waiting } = this.#current ?? this.#start();
    const runId = this.#nextRunId++;
    return new Promise((resolve, reject) => {
      waiting.set(runId, { resolve, reject });
      worker.postMessage({ type: 'run', run: { ...run, runId } } satisfies ToDeliveryThread);
    });
  }

  /** Tells the thread to start no more tries; `close` ends it once the runs under way answered. */
  stopTrying(): void {
    this.#current?.worker.postMessage({ type: 'stop' } satisfies ToDeliveryThread);
  }

  async close(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    await current?.worker.terminate();
  }

  #start(): RunningWorker {
    const worker = new Worker(this.workerFile);
    const waiting = new Map<number, Waiting>();
    // A thread left running must not keep the process alive; the sender ends it when it stops.
    worker.unref();
    // From the worker this class started (delivery-protocol.ts): trusted, its shape is all the type says.
    worker.on('message', (done: RunDone) => {
      waiting.get(done.runId)?.resolve(done.tried);
      waiting.delete(done.runId);
    });
    const fail = (error: Error): void => {
      if (this.#current?.worker === worker) this.#current = undefined;
      for (const run of waiting.values()) run.reject(error);
      waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the delivery thread ended (exit code ${code})`)));
    this.#current = { worker, waiting };
    return this.#current;
  }
}
