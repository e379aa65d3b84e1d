import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Why a request was refused with E503 before any work was done for it. */
export type Refusal = 'load' | 'body_wait' | 'rate_limit';

/** What the store reports about itself when scraped: the engine decides which figures exist. */
export interface StoreUsage {
  /** SQLite: bytes in the write-ahead log, not yet checkpointed into the database file. */
  readonly walBytes?: number;
  /** PostgreSQL: the connection pool of this process. */
  readonly pool?: { readonly total: number; readonly idle: number; readonly waiting: number };
}

/** Request durations, in seconds: from a cached listing (below a millisecond) to a time-out. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Every figure `GET /metrics` shows, in one registry of this process (none is global, so tests
 * and several apps in one process do not mix their counts). Route labels are route patterns
 * (`/v1/tasks/:id`), never raw paths: ids would make a series per record.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  readonly requestDuration = new Histogram({
    name: 'task_service_http_request_duration_seconds',
    help: 'Time from the request arriving to its answer being sent, by route pattern',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  readonly answers = new Counter({
    name: 'task_service_http_answers_total',
    help: 'Answers by route pattern and retcode (ok for a success)',
    labelNames: ['route', 'retcode'] as const,
    registers: [this.registry],
  });

  readonly refused = new Counter({
    name: 'task_service_http_refused_total',
    help: 'Requests refused with E503 before any work: shed under load (load, body_wait) or rate-limited',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly inFlight = new Gauge({
    name: 'task_service_http_requests_in_flight',
    help: 'Requests received and not yet answered',
    registers: [this.registry],
  });

  readonly purgeRuns = new Counter({
    name: 'task_service_purge_runs_total',
    help: 'Runs of the purge of deleted records past retention, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly purgedRecords = new Counter({
    name: 'task_service_purged_records_total',
    help: 'Deleted records purged past retention',
    registers: [this.registry],
  });

  readonly signInFailures = new Counter({
    name: 'task_service_sign_in_failures_total',
    help: 'Refused web sign-ins: wrong (name or password) or throttled (an address that failed too often, not checked)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'task_service_webhook_deliveries_total',
    help: 'Tries of webhook deliveries by outcome: delivered (2xx), failed (retried later), refused_target (a private address)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly remindersFired = new Counter({
    name: 'task_service_reminders_fired_total',
    help: 'Reminders this process fired (claimed), each once across all processes',
    registers: [this.registry],
  });

  readonly remindersLate = new Counter({
    name: 'task_service_reminders_late_total',
    help: 'Reminders this process fired more than 5 s after their time (the service was down, or behind)',
    registers: [this.registry],
  });

  readonly webhookLag = new Histogram({
    name: 'task_service_webhook_delivery_lag_seconds',
    help: 'From the commit of a change to the 2xx answer of its delivery',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120, 600, 3600],
    registers: [this.registry],
  });

  constructor() {
    // Process figures, event-loop delay among them (nodejs_eventloop_lag_*), sampled every 10 ms.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
  }

  refuse(reason: Refusal): void {
    this.refused.inc({ reason });
  }

  /** Store figures read at each scrape: those the engine has (one read now tells which). */
  watchStore(read: () => StoreUsage): void {
    const first = read();
    if (first.walBytes !== undefined) {
      new Gauge({
        name: 'task_service_store_wal_bytes',
        help: 'SQLite: bytes in the write-ahead log not yet checkpointed into the database file',
        registers: [this.registry],
        collect() {
          this.set(read().walBytes ?? 0);
        },
      });
    }
    if (first.pool !== undefined) {
      new Gauge({
        name: 'task_service_store_pool_connections',
        help: 'PostgreSQL: connections of this process by state (idle, in_use), and requests waiting for one',
        labelNames: ['state'] as const,
        registers: [this.registry],
        collect() {
          const pool = read().pool;
          if (pool === undefined) return;
          this.set({ state: 'idle' }, pool.idle);
          this.set({ state: 'in_use' }, pool.total - pool.idle);
          this.set({ state: 'waiting' }, pool.waiting);
        },
      });
    }
  }

  /** Requests waiting for changes (API.md 4.6), read at each scrape. */
  watchWaits(waiting: () => number): void {
    new Gauge({
      name: 'task_service_waiting_requests',
      help: 'List requests with wait held until a change of their account arrives',
      registers: [this.registry],
      collect() {
        this.set(waiting());
      },
    });
  }

  /** The Prometheus text exposition of every figure. */
  async text(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
