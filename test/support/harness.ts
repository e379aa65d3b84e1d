import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { AccountService } from '../../src/service/accounts.js';
import { buildServices, type ServiceOptions, type Services } from '../../src/service/services.js';
import { buildApp, type AppDeps } from '../../src/http/app.js';
import type { StoreLocation } from '../../src/config/store-location.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { checkAgainstDocument } from './openapi-check.js';
import { createTestDatabase } from './postgres.js';

export type Engine = 'sqlite' | 'postgres';
/** Every HTTP behaviour is checked on both engines. */
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

export interface User {
  readonly username: string;
  /** A write-scoped token. */
  readonly token: string;
  readonly readToken: string;
}

export interface Harness {
  readonly app: FastifyInstance;
  readonly store: Store;
  /** Where the store is, as serve's configuration says it. */
  readonly location: StoreLocation;
  readonly accounts: AccountService;
  /** Every use case the app runs on: a test may look at the requests waiting for changes. */
  readonly services: Services;
  newUser(timezone?: string): Promise<User>;
  close(): Promise<void>;
}

let userCounter = 0;

/** A real store (a SQLite file in a temp folder, or a fresh PostgreSQL database) behind the real app. */
/** What a test may set of the app besides its store: its log, its limits. */
export type AppOptions = Partial<
  Pick<
    AppDeps,
    | 'log'
    | 'loadLimits'
    | 'bodyWaitLimits'
    | 'maxConnectionsPerAddress'
    | 'streamLimits'
    | 'webAuth'
    | 'caldav'
    | 'metrics'
    | 'webhookAllowPrivate'
  >
>;

export async function startHarness(
  engine: Engine,
  options: { maintenance?: boolean; app?: AppOptions; services?: ServiceOptions } = {},
): Promise<Harness> {
  let location: StoreLocation;
  let dispose: () => Promise<void>;
  if (engine === 'sqlite') {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'task-service-test-'));
    location = { engine: 'sqlite', dataDir };
    dispose = () => rm(dataDir, { recursive: true, force: true });
  } else {
    const database = await createTestDatabase();
    location = { engine: 'postgres', url: database.url, dataDir: tmpdir(), pooled: false };
    dispose = () => database.drop();
  }
  const store = await openStore(location);
  await store.migrate();
  const services = buildServices(store, options.services);
  const { accounts } = services;
  const app = await buildApp({
    services,
    log: pino({ level: 'silent' }),
    maintenance: options.maintenance ?? false,
    ...options.app,
  });
  await app.ready();
  return {
    app,
    store,
    location,
    accounts,
    services,
    async newUser(timezone = 'UTC') {
      userCounter += 1;
      const username = `user${userCounter}_${process.pid}`;
      await accounts.addUser(username, null, timezone);
      return {
        username,
        token: await accounts.createToken(username, 'write', 'test', null),
        readToken: await accounts.createToken(username, 'read', 'test', null),
      };
    },
    async close() {
      await app.close();
      await store.close();
      await dispose();
    },
  };
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly text: string;
  /** The parsed body; answers of this service are always JSON. */
  readonly json: unknown;
}

/** One request in-process. `body` objects are sent as JSON; strings and buffers as they are. */
export async function call(
  app: FastifyInstance,
  request: {
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
    url: string;
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
  },
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (request.token !== undefined) headers.authorization = `OAuth ${request.token}`;
  let payload: string | Buffer | undefined;
  if (typeof request.body === 'string' || Buffer.isBuffer(request.body)) payload = request.body;
  else if (request.body !== undefined) {
    payload = JSON.stringify(request.body);
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  Object.assign(headers, request.headers);
  const method = request.method ?? (payload === undefined ? 'GET' : 'POST');
  const response = await app.inject({
    method,
    url: request.url,
    headers,
    ...(payload === undefined ? {} : { payload }),
  });
  // Every answer of the suite must be one the OpenAPI document describes.
  checkAgainstDocument({
    method,
    url: request.url,
    status: response.statusCode,
    headers: response.headers,
    body: response.rawPayload,
  });
  return {
    status: response.statusCode,
    headers: response.headers,
    text: response.body,
    json: parsedOrUndefined(response.body),
  };
}
