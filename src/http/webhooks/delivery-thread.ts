import { Worker } from 'node:worker_threads';
import type { DeliveryRun, RunDone, RunResult, ToDeliveryThread } from './delivery-protocol.js';

/** The delivery thread's entry (src/delivery-main.ts as built) and its workerData. */
export interface DeliveryWorker {
  readonly file: URL;
  readonly data: unknown;
  /** Whether that thread reads the outbox itself, over a connection of its own. */
  readonly readsOutbox: boolean;
}

/** A run as the sender hands it over: the thread numbers it. (Omit over each member of the union keeps it one.) */
export type RunRequest = DeliveryRun extends infer Run ? (Run extends unknown ? Omit<Run, 'runId'> : never) : never;

interface Waiting {
  readonly resolve: (result: RunResult) => void;
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

  /** `worker`: the thread's compiled entry and what it is started with. */
  constructor(private readonly worker: DeliveryWorker) {}

  run(run: RunRequest): Promise<RunResult> {
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
    const worker = new Worker(this.worker.file, { workerData: this.worker.data });
    const waiting = new Map<number, Waiting>();
    // A thread left running must not keep the process alive; the sender ends it when it stops.
    worker.unref();
    // From the worker this class started (delivery-protocol.ts): trusted, its shape is all the type says.
    worker.on('message', (done: RunDone) => {
      waiting.get(done.runId)?.resolve(done.result);
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
