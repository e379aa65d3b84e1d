import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendJson } from '../send.js';
import { servedDocument } from './document.js';
import { renderDocsPage } from './docs-page.js';

/** No script may run on the page, and styles only from its own <style>. */
const DOCS_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `GET /openapi.json` and `GET /docs`, both made once and kept; `/signup` in them only with `--signup`. */
export function registerOpenApiRoutes(app: FastifyInstance, options: { readonly signup: boolean }): void {
  let json: string | undefined;
  let page: string | undefined;
  async function openApiJson(_request: FastifyRequest, reply: FastifyReply) {
    json ??= JSON.stringify(servedDocument(options));
    return sendJson(reply, json);
  }
  app.get('/openapi.json', openApiJson);
  async function docsPage(_request: FastifyRequest, reply: FastifyReply) {
    page ??= renderDocsPage(servedDocument(options));
    return reply
      .code(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', DOCS_POLICY)
      .send(page);
  }
  app.get('/docs', docsPage);
}
