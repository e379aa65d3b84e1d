import Fastify, { type FastifyInstance } from 'fastify';
import { capConnectionsPerAddress } from './connection-cap.js';
import { answerClientError, answerFrameworkError } from './error-handling.js';
import { BODY_LIMIT_BYTES } from './request-body.js';

/** TLS key and certificate (PEM); null serves plain HTTP. */
export type ServerTls = { readonly key: string | Buffer; readonly cert: string | Buffer } | null;

const HEADERS_TIMEOUT_MS = 10_000;

/**
 * How often node looks for connections past the header and request time-outs. Its default, 30 s,
 * let a client trickling its headers hold on for up to 40 s instead of 10.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** A TLS client must finish its handshake this fast (node's default: 120 s). */
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * A connection on which nothing moves (no byte read or written) for this long is closed: a
 * client that stops reading its answer included. Longer than every other time-out here.
 */
const SOCKET_INACTIVITY_TIMEOUT_MS = 60_000;

/** Above the 2,000 connections the overload proof holds from one address (a proxy's, say). */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 4096;

/** Options of node's HTTP server, for plain HTTP and HTTPS alike. */
const SERVER_OPTIONS = {
  connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  // Host names nothing here, and node's own refusal of a request without it has no JSON body.
  requireHostHeader: false,
} as const;

/**
 * A fastify instance on node's HTTP or HTTPS server with every time-out and cap of the service
 * set, and malformed HTTP answered in the contract's error body; no hook or route yet. Behind a
 * proxy, `trustProxy` names the peers whose X-Forwarded-Proto, -Host and -For are believed.
 */
export function createServer(
  tls: ServerTls,
  maxConnectionsPerAddress: number,
  trustProxy: readonly string[],
): FastifyInstance {
  const app = Fastify({
    logger: false,
    // request.protocol, .host and .ip then read the forwarded headers, from these peers only.
    trustProxy: trustProxy.length > 0 ? [...trustProxy] : false,
    exposeHeadRoutes: false,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: 30_000,
    keepAliveTimeout: 10_000,
    // A URL fastify cannot decode is answered by the catalogue too, not with fastify's own body.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    ...(tls
      ? {
          https: {
            key: tls.key,
            cert: tls.cert,
            minVersion: 'TLSv1.2' as const,
            handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
            ...SERVER_OPTIONS,
          },
        }
      : { http: SERVER_OPTIONS }),
    // Fastify types an HTTPS app by its raw server; routes and hooks are the same for both and
    // nothing here touches the raw server, so both are handled as the default instance type.
  }) as unknown as FastifyInstance;

  // A client that trickles its headers (slow loris) is cut off after this long.
  app.server.headersTimeout = HEADERS_TIMEOUT_MS;
  app.server.timeout = SOCKET_INACTIVITY_TIMEOUT_MS;
  capConnectionsPerAddress(app.server, maxConnectionsPerAddress);
  return app;
}
