import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  EXPORT_FORMATS,
  IMPORT_FORMATS,
  type ExportFormat,
  type ImportFormat,
  type PortableAccount,
} from '../../domain/portable.js';
import { nowMicros } from '../../domain/time.js';
import { AdminError } from '../../service/accounts.js';
import { FormatError } from '../../service/formats/account-json.js';
import { readPortableFile, writePortableFile } from '../../service/portable-files.js';
import type { ImportReport } from '../../service/portability.js';
import { EXPORT_MEDIA_TYPES, exportDisposition, renderImportReport } from '../wire/account.js';
import { AccountError, requireAccount, sendAccountJson } from './account-reply.js';
import { fieldsOf } from './form.js';
import { guardForm, type WebAuthDeps } from './page-reply.js';

/**
 * The largest file Settings imports: a person's whole account in our JSON is far smaller (a
 * thousand tasks with notes is about 1 MiB); larger files are the command line's, which reads any size.
 */
export const IMPORT_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], what: string): T {
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) throw new AccountError('invalid', `${what} must be one of ${allowed.join(', ')}`);
  return found;
}

/** A file name as the form sends it: its last part only, at most 255 characters. */
function fileNameOf(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  if (text.length > 255) throw new AccountError('invalid', 'name must be at most 255 characters');
  return text.split(/[\\/]/).pop();
}

/** `dry_run`: `1` or `true` for a preview; missing, `0` or `false` to import. */
function dryRunOf(text: string | undefined): boolean {
  if (text === '1' || text === 'true') return true;
  if (text === undefined || text === '0' || text === 'false') return false;
  throw new AccountError('invalid', 'dry_run must be 1 or 0');
}

async function readUpload(
  format: ImportFormat,
  body: unknown,
  zone: string,
  name: string | undefined,
): Promise<PortableAccount> {
  if (!Buffer.isBuffer(body) || body.length === 0) {
    throw new AccountError(
      'invalid',
      'send the file itself as the request body (Content-Type: application/octet-stream)',
    );
  }
  try {
    return await readPortableFile(format, body, zone, { ...(name === undefined ? {} : { name }), now: nowMicros() });
  } catch (error) {
    if (error instanceof FormatError)
      throw new AccountError('invalid', `the file cannot be imported: ${error.message}`);
    throw error;
  }
}

/**
 * Settings' export and import (docs/web.md): the command line's use cases, for the signed-in
 * browser. The export is a download; the import takes the file as the request body, and with
 * `dry_run=1` answers what it would change without changing anything (the preview).
 */
export function registerPortabilityRoutes(scope: FastifyInstance, deps: WebAuthDeps): void {
  const { signIn, portability } = deps;

  async function exportAccount(request: FastifyRequest, reply: FastifyReply) {
    const signedIn = await requireAccount(signIn, request);
    const format: ExportFormat = oneOf(fieldsOf(request.query)['format'] ?? 'json', EXPORT_FORMATS, 'format');
    const { account, data } = await portability.exportAccount(signedIn.username);
    const exported = nowMicros();
    const file = await writePortableFile(format, account, data, exported);
    return reply
      .code(200)
      .headers({
        'cache-control': 'no-store',
        'content-disposition': exportDisposition(format, exported, account.timezone),
        'x-content-type-options': 'nosniff',
      })
      .type(EXPORT_MEDIA_TYPES[format])
      .send(file);
  }
  scope.get('/account/export', exportAccount);

  async function importFile(request: FastifyRequest, reply: FastifyReply) {
    const account = await requireAccount(signIn, request);
    const query = fieldsOf(request.query);
    const format = oneOf(query['format'], IMPORT_FORMATS, 'format');
    const dryRun = dryRunOf(query['dry_run']);
    // Dates without a zone (all-day ones, floating times) are the account's local ones.
    // The file's name, when the browser gave it: a Todoist project's CSV is named for its project.
    const data = await readUpload(format, request.body, account.timezone, fileNameOf(query['name']));
    let report: ImportReport;
    try {
      report = await portability.importAccount(account.username, data, { dryRun });
    } catch (error) {
      // A refused record: which one of the file, which field and why, said for the person.
      if (error instanceof AdminError) throw new AccountError('invalid', error.message);
      throw error;
    }
    return sendAccountJson(reply, 200, renderImportReport(report));
  }
  scope.post('/account/import', { preHandler: guardForm(scope), bodyLimit: IMPORT_BODY_LIMIT_BYTES }, importFile);
}
