import { Worker } from 'node:worker_threads';
import type { DeliveryRun, RunDone, ToDeliveryThread, TriedDelivery } from './delivery-protocol.js';

interface Waiting {
  readonly resolve: (tried: readonly TriedDelivery[]) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The sender's side of its delivery thread (delivery-worker.ts): hands it runs and gets their
 * tries back. Started with the first run; if it dies, its runs fail (the sender retries them as
 * any failed delivery) and the next run starts another.
 */
export class DeliveryThread {
  #worker: Worker | undefined;
  readonly #waiting = new Map<number, Waiting>();
  #nextRunId = 1;

  /** `workerFile`: the compiled delivery-worker.js. */
  constructor(private readonly workerFile: URL) {}

  run(run: Omit<DeliveryRun, 'runId'>): Promise<readonly TriedDelivery[]> {
    const worker = this.#worker ?? this.#start();
    const runId = this.#nextRunId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(runId, { resolve, reject });
      worker.postMessage({ type: 'run', run: { ...run, runId } } satisfies ToDeliveryThread);
    });
  }

  /** Tells the thread to start no more tries; `close` ends it once the runs under way answered. */
  stopTrying(): void {
    this.#worker?.postMessage({ type: 'stop' } satisfies ToDeliveryThread);
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #start(): Worker {
    const worker = new Worker(this.workerFile);
    // A thread left running must not keep the process alive; the sender ends it when it stops.
    worker.unref();
    // From the worker this class started (delivery-protocol.ts): trusted, its shape is all the type says.
    worker.on('message', (done: RunDone) => {
      this.#waiting.get(done.runId)?.resolve(done.tried);
      this.#waiting.delete(done.runId);
    });
    const fail = (error: Error): void => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const waiting of this.#waiting.values()) waiting.reject(error);
      this.#waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the delivery thread ended (exit code ${code})`)));
    this.#worker = worker;
    return worker;
  }
}
