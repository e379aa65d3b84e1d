import { fileURLToPath } from 'node:url';
import type { ServeConfig } from './config/command.js';
import { MICROS_PER_DAY, nowMicros } from './domain/time.js';
import { buildApp } from './http/app.js';
import { WebhookSender } from './http/webhooks/sender.js';
import { LATE_AFTER_MICROS, ReminderFirer } from './service/reminder-firer.js';
import { IDEMPOTENCY_WINDOW_MICROS } from './service/idempotency.js';
import { buildServices } from './service/services.js';
import { DEFAULT_STORAGE_QUOTA } from './domain/storage-quota.js';
import { addressesServed, loadTls } from './http/tls-files.js';
import { describeListenFailure, describeStoreFailure, explained } from './config/startup-failure.js';
import { requireWritableDataFolder } from './store/data-folder.js';
import { openMigrated, outboxReadableAside } from './store/open.js';
import { loadWebApp } from './http/web-app.js';
import { ServiceMetrics } from './http/metrics/metrics.js';
import { listenForMetrics } from './http/metrics/server.js';
import { Readiness } from './http/readiness.js';
import { checkPortFree } from './http/port-check.js';
import { chosenLogFormat, serviceLogger } from './http/service-log.js';
import { storeUsageReader } from './store/usage.js';

/** Where `npm run build` puts the web app: dist/web, beside this file's dist/src. */
const WEB_BUILD_DIR = fileURLToPath(new URL('../web/', import.meta.url));

const PURGE_EVERY_MS = 60 * 60 * 1000;
/** How often each process looks for reminders due: a firing is at most about this late (API.md 4.5 allows 5 s). */
const FIRE_EVERY_MS = 1000;

/** `task-service serve`: config → store → services → app → listen, and a clean stop on SIGTERM. */
export async function serve(config: ServeConfig): Promise<void> {
  const log = await serviceLogger(config.logLevel, chosenLogFormat(config.logFormat, process.stdout.isTTY === true));
  // A port in use is found before anything is made: no store, no certificate.
  await explained(
    () => checkPortFree(config.host, config.port),
    (error) => describeListenFailure(config.host, config.port, error),
  );
  // What the start found worth saying, said after the listening line, which comes first.
  const notes: (() => void)[] = [];
  if (config.store.engine === 'sqlite') requireWritableDataFolder(config.store.dataDir);
  const store = await explained(
    () => openMigrated(config.store, { synchronous: config.synchronous }),
    (error) => describeStoreFailure(config.store, error),
  );

  const tls = config.http ? null : await loadTls(config.tls, config.store.dataDir, config.host);
  if (tls?.made === true) {
    const certificate = tls.certFile;
    // Where it is, also on PostgreSQL (--data-dir keeps only the certificate there): clients trust that file.
    notes.push(() => log.info({ certificate }, 'made a self-signed certificate'));
  }
  if (tls !== null && tls.unnamed.length > 0) {
    const { certFile, unnamed } = tls;
    notes.push(() =>
      log.warn(
        { certificate: certFile, unnamed },
        'the self-signed certificate does not name every address served: clients using those fail TLS; ' +
          'remove tls-cert.pem and tls-key.pem from the data folder to make a new one on the next start',
      ),
    );
  }

  const webApp = await loadWebApp(WEB_BUILD_DIR);
  if (webApp === null)
    notes.push(() => log.warn({ dir: WEB_BUILD_DIR }, 'the web app is not built: run npm run build to serve it at /'));

  const services = buildServices(store, {
    signup: config.signup,
    storageQuota: { ...DEFAULT_STORAGE_QUOTA, maxRecords: config.maxRecords },
  });
  const metrics = config.metrics === null ? undefined : new ServiceMetrics();
  metrics?.watchStore(storeUsageReader(config.store, store));
  metrics?.watchWaits(() => services.waits.waiting);
  const readiness = new Readiness();
  const app = await buildApp({
    ...(metrics === undefined ? {} : { metrics }),
    readiness,
    webApp,
    services,
    log,
    maintenance: config.maintenance,
    rateLimitPerSecond: config.rateLimitPerSecond,
    tls: tls?.material ?? null,
    trustProxy: config.trustProxy,
    webAuth: true,
    caldav: config.caldav,
    webhookAllowPrivate: config.webhookAllowPrivate,
  });
  const readsOutbox = outboxReadableAside(config.store);
  const sender = new WebhookSender(services.webhooks.sending, {
    allowPrivate: config.webhookAllowPrivate,
    deliveryWorker: {
      file: new URL('./delivery-main.js', import.meta.url),
      data: readsOutbox ? config.store : null,
      readsOutbox,
    },
    observe: (outcome, lagSeconds) => {
      metrics?.webhookDeliveries.inc({ outcome });
      if (lagSeconds !== null) metrics?.webhookLag.observe(lagSeconds);
    },
  });

  const firer = new ReminderFirer(services.reminders, {
    everyMs: FIRE_EVERY_MS,
    observe: (lateMicros) => {
      metrics?.remindersFired.inc();
      if (lateMicros > LATE_AFTER_MICROS) metrics?.remindersLate.inc();
    },
    failed: (error) => log.warn({ err: error }, 'firing reminders failed; will try again'),
  });

  const purge = async (): Promise<void> => {
    const now = nowMicros();
    try {
      const purged = await store.purge(now - config.retentionDays * MICROS_PER_DAY);
      if (purged > 0) log.info({ purged }, 'purged deleted records past retention');
      metrics?.purgedRecords.inc(purged);
      await store.forgetKept(now - IDEMPOTENCY_WINDOW_MICROS);
      await services.signIn.forgetOld();
      metrics?.purgeRuns.inc({ outcome: 'ok' });
    } catch (error) {
      metrics?.purgeRuns.inc({ outcome: 'failed' });
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
    // /readyz answers 503 from here on, so that a load balancer stops sending new requests
    // before the listener closes.
    readiness.drain();
    log.info({ signal, drainDelaySeconds: config.drainDelaySeconds }, 'stopping: finishing requests in flight');
    clearInterval(purgeTimer);
    // Requests waiting for changes are answered now (empty, same cursor), not after the drain delay.
    services.waits.shutdown();
    if (config.drainDelaySeconds > 0)
      await new Promise((resolve) => setTimeout(resolve, config.drainDelaySeconds * 1000));
    await app.close();
    await firer.stop();
    await sender.stop();
    await metricsListener?.close();
    await store.close();
    log.info('stopped');
    process.exit(0);
  };
  const metricsAt = config.metrics;
  const metricsListener =
    metricsAt === null || metrics === undefined
      ? undefined
      : await explained(
          () => listenForMetrics(metrics, metricsAt.host, metricsAt.port),
          (error) => describeListenFailure(metricsAt.host, metricsAt.port, error),
        ).catch(async (error: unknown) => {
          await store.close();
          throw error;
        });
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const address = await explained(
    () => app.listen({ host: config.host, port: config.port }),
    (error) => describeListenFailure(config.host, config.port, error),
  ).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const port = new URL(address).port;
  const scheme = config.http ? 'http' : 'https';
  const urls = addressesServed(config.host).map(
    (host) => `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
  );
  log.info(
    {
      address,
      urls,
      engine: store.engine,
      tls: !config.http,
      maintenance: config.maintenance,
      ...(metricsListener === undefined || metricsAt === null
        ? {}
        : { metrics: `http://${metricsAt.host}:${metricsListener.port}/metrics` }),
      stop: `Ctrl-C, or kill -TERM ${process.pid}`,
    },
    'task-service listening',
  );
  for (const note of notes) note();
  // Deliveries start once the service listens: those a stopped or crashed process left go first.
  sender.start();
  firer.start();
}
