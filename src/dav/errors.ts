import { CalendarError, type CalendarProblem } from '../domain/calendar.js';
import { DomainError, StoreUnavailableError, type Problem } from '../domain/errors.js';
import { CalendarDataError } from '../service/formats/calendar-resource.js';
import { XmlBodyError } from './xml/reader.js';
import { NS, element, xmlDocument, type QName } from './xml/writer.js';

/** Our namespace, for the human-readable reason beside a precondition. */
export const TASK_SERVICE_NS = 'http://task-service.invalid/ns/';

/**
 * A CalDAV refusal: the status, the precondition of WebDAV or CalDAV it breaks (if any), and a
 * reason a person can read. The one catalogue of CalDAV errors: everything thrown while serving
 * CalDAV becomes one of these (`davErrorOf`).
 */
export class DavError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly precondition?: QName,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(reason);
    this.name = 'DavError';
  }

  static notFound(): DavError {
    return new DavError(404, 'not found');
  }

  static methodNotAllowed(allow: string): DavError {
    return new DavError(405, 'this method is not allowed here', undefined, { allow });
  }

  static badRequest(reason: string): DavError {
    return new DavError(400, reason);
  }

  static forbidden(reason: string, precondition?: QName): DavError {
    return new DavError(403, reason, precondition);
  }
}

const caldavCondition = (name: string): QName => ({ ns: NS.caldav, name });
const davCondition = (name: string): QName => ({ ns: NS.dav, name });

function ofCalendarProblem(problem: CalendarProblem): DavError {
  switch (problem.kind) {
    case 'precondition_failed':
      return new DavError(412, 'the resource is not as the request expected (If-Match, If-None-Match or Overwrite)');
    case 'uid_in_other_collection':
      return new DavError(
        409,
        'this UID is a task of another collection: move it with MOVE (or change its project) instead',
        caldavCondition('no-uid-conflict'),
      );
    case 'uid_conflict':
      return DavError.forbidden(
        `this UID is already the resource ${problem.name} of this collection`,
        caldavCondition('no-uid-conflict'),
      );
    case 'uid_changed':
      return DavError.forbidden(
        'the UID of a resource cannot change: store another task under another name',
        caldavCondition('valid-calendar-object-resource'),
      );
    case 'not_found':
      return DavError.notFound();
    case 'collection_exists':
      return new DavError(405, 'a collection of this name exists', davCondition('resource-must-be-null'), {
        allow: 'OPTIONS, PROPFIND, PROPPATCH, REPORT, DELETE',
      });
    case 'inbox_fixed':
      return DavError.forbidden('the inbox holds the tasks without a project: it cannot be made, renamed or deleted');
    case 'bad_segment':
      return DavError.forbidden(
        'a new collection is named by a project id: 1-64 characters of A-Z a-z 0-9 _ - + / = .',
        davCondition('valid-resourcetype'),
      );
    case 'self_parent':
      return DavError.forbidden(
        'a task cannot be its own parent (RELATED-TO names its own UID)',
        caldavCondition('valid-calendar-object-resource'),
      );
  }
}

function ofDomainProblem(problem: Problem): DavError | undefined {
  switch (problem.kind) {
    case 'invalid':
      return DavError.forbidden(
        `the task cannot be stored: ${problem.field}${problem.reason === undefined ? '' : ` ${problem.reason}`}`,
        caldavCondition('valid-calendar-object-resource'),
      );
    case 'storage_full':
      return new DavError(
        507,
        `the account stores at most ${problem.max} ${problem.measure}`,
        davCondition('quota-not-exceeded'),
      );
    case 'cursor_expired':
      return DavError.forbidden(
        'the sync token has expired: sync again from the start',
        davCondition('valid-sync-token'),
      );
    case 'not_found':
      return DavError.notFound();
    case 'conflict':
      return new DavError(412, 'the resource changed meanwhile');
    case 'key_reused':
      return undefined;
  }
}

/** The CalDAV answer to anything thrown while serving it; undefined for a failure of ours (500). */
export function davErrorOf(error: unknown): DavError | undefined {
  if (error instanceof DavError) return error;
  if (error instanceof CalendarError) return ofCalendarProblem(error.problem);
  if (error instanceof CalendarDataError) return DavError.forbidden(error.reason, caldavCondition(error.precondition));
  if (error instanceof DomainError) return ofDomainProblem(error.problem);
  if (error instanceof XmlBodyError)
    return error.tooLarge ? new DavError(413, error.message) : DavError.badRequest(error.message);
  if (error instanceof StoreUnavailableError)
    return new DavError(503, 'the store is unavailable', undefined, { 'retry-after': '1' });
  return undefined;
}

/** The body of an error: DAV:error with the precondition, and the reason in our namespace. */
export function errorBody(error: DavError): string {
  return xmlDocument(
    { ns: NS.dav, name: 'error' },
    ...(error.precondition === undefined ? [] : [element(error.precondition)]),
    element({ ns: TASK_SERVICE_NS, name: 'message' }, error.reason),
  );
}
