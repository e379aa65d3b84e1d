/**
 * Every answer a test receives, checked against the OpenAPI document (JSON Schema 2020-12, ajv):
 * the operation must document the status, and the body must match that status's schema. Answers
 * to what no operation names (unknown paths and methods) must be the common error body.
 * Hooked into the shared in-process client (harness.ts `call`), so document and server cannot
 * drift apart without a test failing.
 */
import { gunzipSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../src/http/openapi/document.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function recordAt(value: unknown, key: string): Json {
  const inner = isRecord(value) ? value[key] : undefined;
  return isRecord(inner) ? inner : {};
}

/** The id under which ajv keeps the document's components, added once and shared by every compiled schema. */
const COMPONENTS_ID = 'urn:task-service:components';

/** The schema with its component references pointed at the components schema ajv holds. */
function localRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(localRefs);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string'
        ? inner.replace('#/components/schemas/', `${COMPONENTS_ID}#/$defs/`)
        : localRefs(inner),
    ]),
  );
}

interface DocumentedOperation {
  readonly template: string;
  readonly method: string;
  /** Per status, per media type, the compiled schema of the body. */
  readonly responses: ReadonlyMap<string, ReadonlyMap<string, ValidateFunction>>;
}

interface Checker {
  readonly operations: readonly DocumentedOperation[];
  readonly errorBody: ValidateFunction;
}

function buildChecker(): Checker {
  const document = openApiDocument();
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: localRefs(recordAt(document, 'components')['schemas']) });
  const compile = (schema: unknown): ValidateFunction => {
    const local = localRefs(schema);
    return ajv.compile(isRecord(local) ? local : {});
  };
  const operations: DocumentedOperation[] = [];
  for (const [template, item] of Object.entries(recordAt(document, 'paths'))) {
    for (const [method, operation] of Object.entries(isRecord(item) ? item : {})) {
      const responses = new Map<string, Map<string, ValidateFunction>>();
      for (const [status, response] of Object.entries(recordAt(operation, 'responses'))) {
        const media = new Map<string, ValidateFunction>();
        for (const [type, content] of Object.entries(recordAt(response, 'content')))
          media.set(type, compile(recordAt(content, 'schema')));
        responses.set(status, media);
      }
      operations.push({ template, method: method.toUpperCase(), responses });
    }
  }
  return { operations, errorBody: compile({ $ref: '#/components/schemas/Error' }) };
}

/**
 * Built when this module loads, before any app starts: compiling takes a long turn of the event
 * loop, which a running app's load shedder would answer with E503.
 */
const checker = buildChecker();

/**
 * Whether a request path is served by the operation's path template: a last `{id}` is one or more
 * characters, `/` included (a /v1 record's id may hold one); a `{param}` before the end is one segment.
 */
function matches(template: string, path: string): boolean {
  const pattern = template
    .split(/(\{\w+\})/)
    .map((part, index, parts) => {
      if (!/^\{\w+\}$/.test(part)) return part.replace(/[.*+?^$()[\]\\|]/g, '\\$&');
      return index === parts.length - 2 && parts[parts.length - 1] === '' ? '.+' : '[^/]+';
    })
    .join('');
  return new RegExp(`^${pattern}$`).test(path);
}

/** The operation serving `method path`; `/v1/tasks/` (an empty id) is the listing, as the server treats it. */
export function documentedOperation(method: string, path: string): DocumentedOperation | undefined {
  const exact = checker.operations.find((operation) => operation.method === method && operation.template === path);
  if (exact !== undefined) return exact;
  const listing = checker.operations.find(
    (operation) => operation.method === method && `${operation.template}/` === path,
  );
  return (
    listing ?? checker.operations.find((operation) => operation.method === method && matches(operation.template, path))
  );
}

export interface ReceivedAnswer {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | number | undefined>>;
  readonly body: Buffer;
}

function describeErrors(validate: ValidateFunction): string {
  return JSON.stringify(validate.errors ?? []);
}

/** Throws, saying what differs, when the answer is not one the document describes. */
export function checkAgainstDocument(answer: ReceivedAnswer): void {
  const where = `${answer.method} ${answer.url} → ${answer.status}`;
  // HTTP gives a HEAD answer no body; the server answers HEAD as an unknown address (E002).
  if (answer.method === 'HEAD') {
    if (answer.body.length !== 0 || answer.status !== 400)
      throw new Error(`${where}: a HEAD answer other than an empty 400`);
    return;
  }
  const path = answer.url.split('?')[0] ?? '';
  const mediaType =
    String(answer.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim() ?? '';
  const raw = answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.body) : answer.body;
  const text = raw.toString('utf8');
  let body: unknown = text;
  if (mediaType === 'application/json') {
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${where}: the answer is not JSON: ${text.slice(0, 200)}`);
    }
  }
  const operation = documentedOperation(answer.method, path);
  if (operation === undefined) {
    if (!checker.errorBody(body))
      throw new Error(
        `${where}: not the common error body: ${describeErrors(checker.errorBody)} ${text.slice(0, 500)}`,
      );
    return;
  }
  const media = operation.responses.get(String(answer.status));
  if (media === undefined)
    throw new Error(
      `${where}: the document gives no ${answer.status} answer for ${operation.method} ${operation.template}`,
    );
  // A redirect, or an answer that is its status alone: documented without content, sent without a body.
  if (media.size === 0) {
    if (raw.length !== 0) throw new Error(`${where}: the document gives no body for ${answer.status}, one came`);
    return;
  }
  const validate = media.get(mediaType);
  if (validate === undefined) throw new Error(`${where}: the document gives no ${mediaType} body for ${answer.status}`);
  if (!validate(body))
    throw new Error(`${where}: the body differs from the document: ${describeErrors(validate)}\n${text.slice(0, 500)}`);
}
