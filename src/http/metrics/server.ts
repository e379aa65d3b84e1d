import http from 'node:http';
import type { ServiceMetrics } from './metrics.js';

/**
 * The metrics listener, apart from the API: `GET /metrics` in Prometheus text, nothing else. It
 * has no credential, which is why it listens on its own port, on 127.0.0.1 unless told otherwise.
 */
export async function listenForMetrics(
  metrics: ServiceMetrics,
  host: string,
  port: number,
): Promise<{ readonly port: number; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('only GET /metrics here\n');
      return;
    }
    metrics.text().then(
      ({ body, contentType }) => response.writeHead(200, { 'content-type': contentType }).end(body),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = address !== null && typeof address === 'object' ? address.port : port;
  return {
    port: bound,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
