import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Task } from '../domain/task.js';
import { collectionOf, resourceNameOf, sameCollection, type CollectionId } from '../domain/calendar.js';
import { sendMultistatus, type DavContext } from './context.js';
import { DavError } from './errors.js';
import { passesEveryTask, passesFilter } from './filters.js';
import { keyOf, MULTISTATUS, statusResponse } from './multistatus.js';
import { collectionHref, collectionOfSegment, objectHref, pathOfHref, targetOf, type DavTarget } from './paths.js';
import { collectionView, objectResponder, tasksOf } from './propfind.js';
import { calendarDataOf, calendarOf } from './render.js';
import type { PropertyRequest, Report } from './requests.js';
import { positionOfSyncToken, syncTokenOf } from './tokens.js';
import { calendarText } from '../service/formats/vtodo.js';
import { dav, NS, type Markup } from './xml/writer.js';

/** Work done in one turn of the event loop before other requests get theirs. */
const TURN_MS = 20;

/** Hands the event loop to other requests once this request has worked for TURN_MS. */
class WorkTurn {
  #since = performance.now();

  async mayYield(): Promise<void> {
    if (performance.now() - this.#since < TURN_MS) return;
    await nextTurn();
    this.#since = performance.now();
  }
}

const CALENDAR_DATA = keyOf({ ns: NS.caldav, name: 'calendar-data' });

function wantsCalendarData(request: PropertyRequest): boolean {
  return request.kind === 'prop' && request.names.some((name) => keyOf(name) === CALENDAR_DATA);
}

/** Writes each task's response, its calendar-data made (as asked) only when it was asked for. */
function taskResponder(context: DavContext, collection: CollectionId, request: PropertyRequest) {
  const zone = context.account.timezone;
  const asked = request.kind === 'prop' ? request.calendarData : undefined;
  return objectResponder(context, collection, request, (task) => calendarDataOf(task, zone, asked));
}

function invalidSyncToken(): DavError {
  return DavError.forbidden('the sync token is not one of this server, or has expired: sync again from the start', {
    ns: NS.dav,
    name: 'valid-sync-token',
  });
}

async function* calendarQuery(
  context: DavContext,
  collection: CollectionId,
  report: Extract<Report, { kind: 'calendar-query' }>,
): AsyncGenerator<Markup> {
  const zone = context.account.timezone;
  const everyTask = passesEveryTask(report.filter);
  const data = report.properties.kind === 'prop' ? report.properties.calendarData : undefined;
  const respond = taskResponder(context, collection, report.properties);
  const turn = new WorkTurn();
  for await (const task of tasksOf(context, collection)) {
    if (everyTask) {
      yield respond(task);
      continue;
    }
    // A time-range on many repeating tasks may look at thousands of occurrences each.
    await turn.mayYield();
    const calendar = calendarOf(task, zone);
    if (!passesFilter(report.filter, calendar, task, zone)) continue;
    // The calendar just read is the one served, unless a selection or expansion was asked for.
    const made = data === undefined && wantsCalendarData(report.properties) ? calendarText(calendar) : undefined;
    yield respond(task, made);
  }
}

async function* multiget(
  context: DavContext,
  hrefs: readonly string[],
  properties: PropertyRequest,
): AsyncGenerator<Markup> {
  const { account, services } = context;
  // Each href's collection and name, those of other accounts or no resource at all left undefined.
  const targets = hrefs.map((href) => {
    const path = pathOfHref(href);
    const target: DavTarget = path === undefined ? { kind: 'unknown' } : targetOf(path);
    return target.kind === 'object' && target.username === account.username ? target : undefined;
  });
  const found = new Map<string, Map<string, Task>>();
  for (const segment of new Set(targets.flatMap((target) => (target === undefined ? [] : [target.segment])))) {
    const collection = collectionOfSegment(segment);
    // Only a collection that exists is searched: made-up segments cost a lookup each, no more.
    if (
      collection.kind === 'project' &&
      (await services.calendars.project(account.id, collection.projectId)) === undefined
    )
      continue;
    const names = targets.flatMap((target) => (target?.segment === segment ? [target.name] : []));
    found.set(segment, await services.calendars.findMany(account.id, collection, names));
  }
  const responders = new Map<string, ReturnType<typeof taskResponder>>();
  const turn = new WorkTurn();
  for (const [index, href] of hrefs.entries()) {
    await turn.mayYield();
    const target = targets[index];
    const task = target === undefined ? undefined : found.get(target.segment)?.get(target.name);
    if (target === undefined || task === undefined) {
      yield statusResponse(href, '404 Not Found');
      continue;
    }
    let respond = responders.get(target.segment);
    if (respond === undefined) {
      respond = taskResponder(context, collectionOfSegment(target.segment), properties);
      responders.set(target.segment, respond);
    }
    yield respond(task);
  }
}

/**
 * RFC 6578 on the /v1 cursor: the changes since the token, in commit order. A task now in the
 * collection is a response with its properties; any other changed task (deleted, trashed, moved
 * away, or of another collection) is a 404 response, which a client that never had it ignores.
 */
async function* syncCollection(
  context: DavContext,
  collection: CollectionId,
  report: Extract<Report, { kind: 'sync-collection' }>,
): AsyncGenerator<Markup> {
  const { account, services } = context;
  const after = report.syncToken === '' ? undefined : positionOfSyncToken(report.syncToken);
  if (report.syncToken !== '' && after === undefined) throw invalidSyncToken();
  // A token older than the purge horizon, from before a restore or from another store, is
  // refused here (DomainError cursor_expired: 403 valid-sync-token).
  const listing = await services.listing.open(account.id, 'task', {
    ...(after === undefined ? {} : { after }),
    ...(report.limit === undefined ? {} : { limit: report.limit }),
  });
  try {
    const respond = taskResponder(context, collection, report.properties);
    for await (const batch of listing.batches()) {
      // Other requests get their turn between batches: SQLite reads without waiting for anything.
      await nextTurn();
      for (const task of batch) {
        const where = collectionOf(task);
        if (where !== undefined && sameCollection(where, collection)) yield respond(task);
        else if (after !== undefined)
          yield statusResponse(objectHref(account.username, collection, resourceNameOf(task)), '404 Not Found');
      }
    }
    if (listing.hasMore) yield statusResponse(collectionHref(account.username, collection), '507 Insufficient Storage');
    yield dav('sync-token', syncTokenOf(listing.cursor));
  } finally {
    await listing.close();
  }
}

export async function report(context: DavContext, target: DavTarget, body: Report) {
  if (target.kind !== 'collection')
    throw DavError.forbidden('reports are served on a task collection', { ns: NS.dav, name: 'supported-report' });
  const view = await collectionView(context, target.segment);
  const responses =
    body.kind === 'calendar-query'
      ? calendarQuery(context, view.id, body)
      : body.kind === 'calendar-multiget'
        ? multiget(context, body.hrefs, body.properties)
        : syncCollection(context, view.id, body);
  // Nothing is sent before the first responses are made: an invalid token is a 403, not a cut stream.
  return sendMultistatus(context, MULTISTATUS, responses);
}
