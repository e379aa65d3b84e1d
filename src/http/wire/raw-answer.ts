import { STATUS_CODES } from 'node:http';
import { JSON_CONTENT_TYPE } from './content-type.js';
import { renderErrorBody, statusOf, type WireError } from './errors.js';

/**
 * The whole HTTP response, as bytes for the socket, to a request node's parser refused: fastify
 * never sees it, so the error body and headers are written here, and the connection closes.
 */
export function rawErrorResponse(error: WireError): string {
  const body = renderErrorBody(error.retcode, error.retmsg, '');
  const status = statusOf(error.retcode);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`
  );
}
