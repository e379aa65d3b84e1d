import pino from 'pino';
import type { ServeConfig } from './config.js';
import { microsFromMillis, MICROS_PER_DAY } from './domain/time.js';
import { buildApp } from './http/app.js';
import { AccountService } from './service/accounts.js';
import { ListingService } from './service/listing.js';
import { SettingsService } from './service/settings.js';
import { TaskService } from './service/tasks.js';
import { LabelService } from './service/labels.js';
import { IDEMPOTENCY_WINDOW_MICROS } from './service/idempotency.js';
import { loadTls } from './cli/tls-files.js';
import { openStore } from './store/open.js';

const PURGE_EVERY_MS = 60 * 60 * 1000;

/** `task-service serve`: config → store → services → app → listen, and a clean stop on SIGTERM. */
export async function serve(config: ServeConfig): Promise<void> {
  // Written asynchronously: lines that arrive while one write is under way go out together, so a
  // busy server does not make a system call per response. Pending lines are flushed on exit.
  const log = pino({ level: config.logLevel, base: { pid: process.pid } }, pino.destination({ dest: 1, sync: false }));
  const store = await openStore(config.store, { synchronous: config.synchronous });
  await store.migrate();

  const tls = config.http ? null : await loadTls(config.tls, config.store.dataDir);
  if (tls?.made === true) log.info({ certificate: tls.certFile }, 'made a self-signed certificate');

  const app = await buildApp({
    accounts: new AccountService(store),
    listing: new ListingService(store),
    tasks: new TaskService(store),
    labels: new LabelService(store),
    settings: new SettingsService(store),
    health: () => store.ping(),
    log,
    maintenance: config.maintenance,
    rateLimitPerSecond: config.rateLimitPerSecond,
    tls: tls?.material ?? null,
  });

  const purge = async (): Promise<void> => {
    const now = microsFromMillis(Date.now());
    try {
      const purged = await store.purge(now - config.retentionDays * MICROS_PER_DAY);
      if (purged > 0) log.info({ purged }, 'purged deleted records past retention');
      await store.forgetAnswers(now - IDEMPOTENCY_WINDOW_MICROS);
    } catch (error) {
      log.warn({ err: error }, 'purge failed; will try again');
    }
  };
  await purge();
  const purgeTimer = setInterval(() => void purge(), PURGE_EVERY_MS);
  purgeTimer.unref();

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: finishing requests in flight');
    clearInterval(purgeTimer);
    await app.close();
    await store.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const address = await app.listen({ host: config.host, port: config.port });
  log.info(
    { address, engine: store.engine, tls: !config.http, maintenance: config.maintenance },
    'task-service listening',
  );
}
