import type { Account } from '../domain/account.js';
import type { CollectionId } from '../domain/calendar.js';
import type { SyncPosition } from '../domain/sync.js';
import type { Task } from '../domain/task.js';
import { keyOf, type PropertyTable } from './multistatus.js';
import { homeHref, principalHref } from './paths.js';
import { etagOf, syncTokenOf } from './tokens.js';
import { caldav, dav, elementWith, NS, type QName, type XmlChild } from './xml/writer.js';

/** The properties of each kind of resource (CALDAV.md section 1), each table made once. */

type Entry<T> = readonly [QName, (item: T) => readonly XmlChild[] | undefined];

const d = (name: string): QName => ({ ns: NS.dav, name });
const c = (name: string): QName => ({ ns: NS.caldav, name });

function table<T>(entries: readonly Entry<T>[]): PropertyTable<T> {
  return new Map(entries.map(([name, value]) => [keyOf(name), value]));
}

const READ_PRIVILEGES = ['read', 'read-current-user-privilege-set'];
const WRITE_PRIVILEGES = ['write', 'write-properties', 'write-content', 'bind', 'unbind'];

function privileges(writable: boolean): XmlChild[] {
  const names = writable ? [...READ_PRIVILEGES, ...WRITE_PRIVILEGES] : READ_PRIVILEGES;
  return names.map((name) => dav('privilege', dav(name)));
}

/** What the account's own resources are shown for: the account, and whether its token may write. */
export interface Viewer {
  readonly account: Account;
  readonly writable: boolean;
}

const userPrincipal: Entry<Viewer> = [
  d('current-user-principal'),
  ({ account }) => [dav('href', principalHref(account.username))],
];

export const ROOT_PROPERTIES: PropertyTable<Viewer> = table<Viewer>([
  [d('resourcetype'), () => [dav('collection')]],
  userPrincipal,
]);

export const PRINCIPAL_PROPERTIES: PropertyTable<Viewer> = table<Viewer>([
  [d('resourcetype'), () => [dav('principal')]],
  [d('displayname'), ({ account }) => [account.nickname === '' ? account.username : account.nickname]],
  userPrincipal,
  [d('principal-URL'), ({ account }) => [dav('href', principalHref(account.username))]],
  [c('calendar-home-set'), ({ account }) => [dav('href', homeHref(account.username))]],
  [c('calendar-user-address-set'), () => []],
]);

export const HOME_PROPERTIES: PropertyTable<Viewer> = table<Viewer>([
  [d('resourcetype'), () => [dav('collection')]],
  [d('displayname'), ({ account }) => [account.username]],
  [d('owner'), ({ account }) => [dav('href', principalHref(account.username))]],
  userPrincipal,
  [d('current-user-privilege-set'), ({ writable }) => privileges(writable)],
]);

/** A collection as CalDAV shows it: the inbox or a project. */
export interface CollectionView {
  readonly id: CollectionId;
  readonly displayName: string;
  readonly color: string | null;
  /** Where the account stands: the collection's sync token and ctag. */
  readonly head: SyncPosition;
}

export interface CollectionItem extends Viewer {
  readonly view: CollectionView;
}

/** Apple's name for a collection's color, which most clients read and write. */
export const CALENDAR_COLOR: QName = { ns: NS.apple, name: 'calendar-color' };

const SUPPORTED_REPORTS = [c('calendar-query'), c('calendar-multiget'), d('sync-collection')];

export const COLLECTION_PROPERTIES: PropertyTable<CollectionItem> = table<CollectionItem>([
  [d('resourcetype'), () => [dav('collection'), caldav('calendar')]],
  [d('displayname'), ({ view }) => [view.displayName]],
  [c('supported-calendar-component-set'), () => [elementWith(c('comp'), { name: 'VTODO' })]],
  [
    d('supported-report-set'),
    () => SUPPORTED_REPORTS.map((name) => dav('supported-report', dav('report', elementWith(name, {})))),
  ],
  [d('sync-token'), ({ view }) => [syncTokenOf(view.head)]],
  [{ ns: NS.calendarServer, name: 'getctag' }, ({ view }) => [syncTokenOf(view.head)]],
  [d('getetag'), ({ view }) => [etagOf(view.head.rev)]],
  [d('current-user-privilege-set'), ({ writable }) => privileges(writable)],
  [d('owner'), ({ account }) => [dav('href', principalHref(account.username))]],
  userPrincipal,
  [CALENDAR_COLOR, ({ view }) => (view.color === null ? undefined : [view.color])],
]);

export const ICS_CONTENT_TYPE = 'text/calendar; charset=utf-8; component=VTODO';

/** A task's resource: the task, and its calendar-data, made only when asked for. */
export interface ObjectItem {
  readonly task: Task;
  readonly calendarData: () => string;
}

const HTTP_DATE = (updated: number): string => new Date(Math.floor(updated / 1000)).toUTCString();

export const OBJECT_PROPERTIES: PropertyTable<ObjectItem> = table<ObjectItem>([
  [d('resourcetype'), () => []],
  [d('getetag'), ({ task }) => [etagOf(task.rev)]],
  [d('getcontenttype'), () => [ICS_CONTENT_TYPE]],
  [d('getlastmodified'), ({ task }) => [HTTP_DATE(task.updated)]],
  [c('calendar-data'), ({ calendarData }) => [calendarData()]],
]);
