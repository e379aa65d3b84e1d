import type { CollectionId } from '../domain/calendar.js';
import type { Conditions } from '../service/calendars.js';
import { bodyText, type DavContext } from './context.js';
import { DavError } from './errors.js';
import { collectionOfSegment, pathOfHref, targetOf } from './paths.js';
import { ICS_CONTENT_TYPE } from './properties.js';
import { icsOf } from './render.js';
import { etagOf, revsOfEtags } from './tokens.js';

/** GET, HEAD, PUT, DELETE and MOVE of one task's resource (CALDAV.md section 4). */

type ObjectTarget = { readonly segment: string; readonly name: string };

function header(context: DavContext, name: string): string | undefined {
  const value = context.request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function conditionsOf(context: DavContext): Conditions {
  const ifMatch = header(context, 'if-match');
  const ifNoneMatch = header(context, 'if-none-match');
  return {
    ...(ifMatch === undefined ? {} : { ifMatch: revsOfEtags(ifMatch) }),
    ...(ifNoneMatch === undefined ? {} : { ifNoneMatch: revsOfEtags(ifNoneMatch) }),
  };
}

export async function getObject(context: DavContext, target: ObjectTarget, withBody: boolean) {
  const { account, services, reply } = context;
  const collection = collectionOfSegment(target.segment);
  const task = await services.calendars.find(account.id, collection, target.name);
  if (task === undefined) throw DavError.notFound();
  const etag = etagOf(task.rev);
  void reply.header('etag', etag).header('last-modified', new Date(Math.floor(task.updated / 1000)).toUTCString());
  const ifNoneMatch = header(context, 'if-none-match');
  if (ifNoneMatch !== undefined) {
    const revs = revsOfEtags(ifNoneMatch);
    if (revs === '*' || revs.includes(task.rev)) return reply.code(304).send();
  }
  const body = icsOf(task, account.timezone);
  void reply.code(200).header('content-type', ICS_CONTENT_TYPE);
  if (!withBody) return reply.header('content-length', String(Buffer.byteLength(body))).send();
  return reply.send(body);
}

export async function putObject(context: DavContext, target: ObjectTarget) {
  const { account, services, reply } = context;
  const outcome = await services.calendars.put(account, {
    collection: collectionOfSegment(target.segment),
    name: target.name,
    body: bodyText(context.request),
    conditions: conditionsOf(context),
  });
  // RFC 4791 5.3.4: an ETag only when the stored resource is what was sent; else the client fetches it.
  if (outcome.asSent) void reply.header('etag', etagOf(outcome.task.rev));
  return reply.code(outcome.created ? 201 : 204).send();
}

export async function deleteObject(context: DavContext, target: ObjectTarget) {
  const { account, services, reply } = context;
  await services.calendars.delete(account, collectionOfSegment(target.segment), target.name, conditionsOf(context));
  return reply.code(204).send();
}

/** MOVE to another collection of the account (and name): the task keeps its id, its project changes. */
export async function moveObject(context: DavContext, target: ObjectTarget) {
  const { account, services, reply } = context;
  const destination = header(context, 'destination');
  const path = destination === undefined ? undefined : pathOfHref(destination);
  if (path === undefined) throw DavError.badRequest('MOVE needs a Destination');
  const to = targetOf(path);
  if (to.kind !== 'object' || to.username !== account.username)
    throw new DavError(502, 'a task moves to a resource of another collection of this account only');
  const overwrite = (header(context, 'overwrite') ?? 'T').trim().toUpperCase() !== 'F';
  const toCollection: CollectionId = collectionOfSegment(to.segment);
  const moved = await services.calendars.move(
    account,
    { collection: collectionOfSegment(target.segment), name: target.name },
    { collection: toCollection, name: to.name },
    { ...conditionsOf(context), overwrite },
  );
  return reply.code(moved.created ? 201 : 204).send();
}
