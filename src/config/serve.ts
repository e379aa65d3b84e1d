import { isIP } from 'node:net';
import path from 'node:path';
import { DEFAULT_STORAGE_QUOTA } from '../domain/storage-quota.js';
import type { ServeConfig } from './command.js';
import { ConfigError } from './config-error.js';
import { oneOf, rateLimit, wholeNumber } from './flag-values.js';
import type { GivenFlags } from './given-flags.js';
import { setting, switchSetting, type Env } from './settings.js';
import { storeLocation } from './store-location.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;

function logFormat(text: string | undefined): ServeConfig['logFormat'] {
  return text === undefined ? null : oneOf(text, ['json', 'pretty'] as const, '--log-format');
}

/** The names of address ranges that `--trust-proxy` takes besides addresses and CIDR ranges. */
const TRUSTED_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** `--trust-proxy 127.0.0.1,10.0.0.0/8` (or `loopback`): the peers whose forwarded headers count. */
function trustedProxies(text: string | undefined): readonly string[] {
  if (text === undefined || text === '' || text === 'off') return [];
  return text.split(',').map((entry) => {
    const item = entry.trim();
    if (TRUSTED_RANGE_NAMES.includes(item)) return item;
    const [address = '', prefix, ...rest] = item.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefixFits = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixFits || rest.length > 0) {
      throw new ConfigError(
        `--trust-proxy takes addresses or CIDR ranges, comma-separated (127.0.0.1,10.0.0.0/8), or ${TRUSTED_RANGE_NAMES.join(', ')}; got "${item}"`,
      );
    }
    return item;
  });
}

function metricsListener(given: GivenFlags, env: Env): ServeConfig['metrics'] {
  const port = setting(given, 'metrics-port', env);
  if (port === undefined || port === 'off') return null;
  return {
    host: setting(given, 'metrics-host', env) ?? '127.0.0.1',
    port: wholeNumber(port, '--metrics-port', 0, 65535),
  };
}

/** `serve`'s settings, each from its flag, else its environment variable, else its default. */
export function serveConfig(given: GivenFlags, env: Env, debug: boolean): ServeConfig {
  const certFile = setting(given, 'tls-cert', env);
  const keyFile = setting(given, 'tls-key', env);
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError('--tls-cert and --tls-key go together: give both, or neither for a self-signed certificate');
  }
  return {
    command: 'serve',
    debug,
    store: storeLocation(given, env),
    host: setting(given, 'host', env) ?? '127.0.0.1',
    port: wholeNumber(setting(given, 'port', env) ?? '8443', '--port', 0, 65535),
    http: switchSetting(given, 'http', env),
    tls:
      certFile !== undefined && keyFile !== undefined
        ? { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) }
        : null,
    trustProxy: trustedProxies(setting(given, 'trust-proxy', env)),
    maintenance: switchSetting(given, 'maintenance', env),
    retentionDays: wholeNumber(setting(given, 'retention', env) ?? '180', '--retention', 0, 36500),
    maxRecords: wholeNumber(
      setting(given, 'max-records', env) ?? String(DEFAULT_STORAGE_QUOTA.maxRecords),
      '--max-records',
      1,
      1_000_000_000,
    ),
    logLevel: oneOf(setting(given, 'log-level', env) ?? 'info', LOG_LEVELS, '--log-level'),
    logFormat: logFormat(setting(given, 'log-format', env)),
    synchronous: oneOf(
      (setting(given, 'synchronous', env) ?? 'FULL').toUpperCase(),
      ['FULL', 'NORMAL'] as const,
      '--synchronous',
    ),
    rateLimitPerSecond: rateLimit(setting(given, 'rate-limit', env)),
    signup: switchSetting(given, 'signup', env),
    caldav: !switchSetting(given, 'no-caldav', env),
    metrics: metricsListener(given, env),
    drainDelaySeconds: wholeNumber(setting(given, 'drain-delay', env) ?? '0', '--drain-delay', 0, 3600),
    webhookAllowPrivate: switchSetting(given, 'webhook-allow-private', env),
  };
}
