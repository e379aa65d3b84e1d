/**
 * `GET /docs`: the OpenAPI document as a page to read, rendered here on the server from the
 * document itself. No script runs on it; every text is HTML-escaped.
 */
import { escapeHtml } from '../wire/escape.js';
import type { JsonSchema } from './components.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function recordAt(value: unknown, key: string): Record<string, unknown> {
  return asRecord(isRecord(value) ? value[key] : undefined);
}

function textAt(value: unknown, key: string): string {
  const inner = isRecord(value) ? value[key] : undefined;
  return typeof inner === 'string' ? inner : '';
}

function listAt(value: unknown, key: string): unknown[] {
  const inner = isRecord(value) ? value[key] : undefined;
  return Array.isArray(inner) ? inner : [];
}

/** Text with `code` spans, escaped: backticks are the only markup the document's texts use. */
function prose(text: string): string {
  return escapeHtml(text)
    .split('`')
    .map((part, index) => (index % 2 === 1 ? `<code>${part}</code>` : part))
    .join('');
}

/** A schema in a few words: a component's name as a link, a type, or its alternatives. */
function typeOf(schema: unknown): string {
  const ref = textAt(schema, '$ref');
  if (ref !== '') {
    const name = ref.slice(ref.lastIndexOf('/') + 1);
    return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  }
  for (const combinator of ['anyOf', 'oneOf', 'allOf']) {
    // An allOf here is a component narrowed (an error body's retcodes): its name says enough.
    const options = listAt(schema, combinator).filter(
      (option) => combinator !== 'allOf' || textAt(option, '$ref') !== '',
    );
    if (options.length > 0)
      return options
        .map(typeOf)
        .filter((part) => part !== '')
        .join(' | ');
  }
  const type = isRecord(schema) ? schema['type'] : undefined;
  if (type === 'array') return `array of ${typeOf(recordAt(schema, 'items'))}`;
  const values = listAt(schema, 'enum');
  if (values.length > 0) return values.map((value) => `<code>${escapeHtml(JSON.stringify(value))}</code>`).join(' | ');
  if (isRecord(schema) && 'const' in schema) return `<code>${escapeHtml(JSON.stringify(schema['const']))}</code>`;
  if (typeof type === 'string') {
    const pattern = textAt(schema, 'pattern');
    return escapeHtml(type) + (pattern === '' ? '' : ` <code>${escapeHtml(pattern)}</code>`);
  }
  return '';
}

function operationHtml(path: string, method: string, operation: unknown): string {
  const parameters = listAt(operation, 'parameters')
    .map(
      (parameter) =>
        `<tr><td><code>${escapeHtml(textAt(parameter, 'name'))}</code></td><td>${escapeHtml(textAt(parameter, 'in'))}</td>` +
        `<td>${typeOf(recordAt(parameter, 'schema'))}</td><td>${prose(textAt(parameter, 'description'))}</td></tr>`,
    )
    .join('');
  // JSON, or the form of the sign-in and OAuth endpoints: each takes one media type.
  const body = asRecord(Object.values(recordAt(recordAt(operation, 'requestBody'), 'content'))[0]);
  const responses = Object.entries(recordAt(operation, 'responses'))
    .map(([status, response]) => {
      const content = recordAt(response, 'content');
      const schemas = Object.values(content).map((media) => typeOf(recordAt(media, 'schema')));
      return `<tr><td>${escapeHtml(status)}</td><td>${schemas.join(' ')}</td><td>${prose(textAt(response, 'description'))}</td></tr>`;
    })
    .join('');
  const id = `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-');
  return (
    `<section id="${escapeHtml(id)}"><h3><span class="method">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h3>` +
    `<p>${prose(textAt(operation, 'summary'))}</p>` +
    (textAt(operation, 'description') === '' ? '' : `<p>${prose(textAt(operation, 'description'))}</p>`) +
    (parameters === ''
      ? ''
      : `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th></th></tr>${parameters}</table>`) +
    (Object.keys(body).length === 0 ? '' : `<h4>Body</h4><p>${typeOf(recordAt(body, 'schema'))}</p>`) +
    `<h4>Answers</h4><table><tr><th>status</th><th>body</th><th></th></tr>${responses}</table></section>`
  );
}

function schemaHtml(name: string, schema: unknown): string {
  const required = new Set(listAt(schema, 'required'));
  const rows = Object.entries(recordAt(schema, 'properties'))
    .map(
      ([field, inner]) =>
        `<tr><td><code>${escapeHtml(field)}</code></td><td>${typeOf(inner)}${required.has(field) ? '' : ' (optional)'}</td>` +
        `<td>${prose(textAt(inner, 'description'))}</td></tr>`,
    )
    .join('');
  const shape =
    rows === '' ? `<p>${typeOf(schema)}</p>` : `<table><tr><th>field</th><th>type</th><th></th></tr>${rows}</table>`;
  return `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3><p>${prose(textAt(schema, 'description'))}</p>${shape}</section>`;
}

const STYLE =
  'body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}' +
  'table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}' +
  'code{background:#f4f4f4;padding:0 .2rem}.method{font-weight:bold;color:#064}section{margin-bottom:1.5rem}';

/** The whole page. */
export function renderDocsPage(document: JsonSchema): string {
  const info = recordAt(document, 'info');
  const operations = Object.entries(recordAt(document, 'paths')).flatMap(([path, item]) =>
    Object.entries(asRecord(item)).map(([method, operation]) => operationHtml(path, method, operation)),
  );
  const schemas = Object.entries(recordAt(recordAt(document, 'components'), 'schemas')).map(([name, schema]) =>
    schemaHtml(name, schema),
  );
  const description = textAt(info, 'description')
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => `<li>${prose(line.slice(2))}</li>`)
    .join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(textAt(info, 'title'))} API</title>` +
    `<style>${STYLE}</style></head><body><main><h1>${escapeHtml(textAt(info, 'title'))} API</h1>` +
    `<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${escapeHtml(textAt(document, 'openapi'))}).</p>` +
    `<ul>${description}</ul><h2>Operations</h2>${operations.join('')}<h2>Schemas</h2>${schemas.join('')}</main></body></html>`
  );
}
