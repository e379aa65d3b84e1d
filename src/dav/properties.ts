import type { Account } from '../domain/account.js';
import type { CollectionId } from '../domain/calendar.js';
import type { Task } from '../domain/task.js';
import { keyOf, type PropertyTable } from './multistatus.js';
import { homeHref, principalHref } from './paths.js';
import { etagOf, syncTokenOf } from './tokens.js';
import { caldav, dav, elementWith, NS, type QName, type XmlChild } from './xml/writer.js';

/** The properties of each kind of resource (CALDAV.md section 1). */

type Entry = readonly [QName, () => readonly XmlChild[]];

const d = (name: string): QName => ({ ns: NS.dav, name });
const c = (name: string): QName => ({ ns: NS.caldav, name });

function table(entries: readonly Entry[]): PropertyTable {
  return new Map(entries.map(([name, value]) => [keyOf(name), value]));
}

const READ_PRIVILEGES = ['read', 'read-current-user-privilege-set'];
const WRITE_PRIVILEGES = ['write', 'write-properties', 'write-content', 'bind', 'unbind'];

function privileges(writable: boolean): XmlChild[] {
  const names = writable ? [...READ_PRIVILEGES, ...WRITE_PRIVILEGES] : READ_PRIVILEGES;
  return names.map((name) => dav('privilege', dav(name)));
}

function principalEntries(account: Account): Entry[] {
  return [
    [d('current-user-principal'), () => [dav('href', principalHref(account.username))]],
    [d('principal-URL'), () => [dav('href', principalHref(account.username))]],
    [c('calendar-home-set'), () => [dav('href', homeHref(account.username))]],
  ];
}

export function rootProperties(account: Account): PropertyTable {
  return table([[d('resourcetype'), () => [dav('collection')]], ...principalEntries(account).slice(0, 1)]);
}

export function principalProperties(account: Account): PropertyTable {
  return table([
    [d('resourcetype'), () => [dav('principal')]],
    [d('displayname'), () => [account.nickname === '' ? account.username : account.nickname]],
    ...principalEntries(account),
    [c('calendar-user-address-set'), () => []],
  ]);
}

export function homeProperties(account: Account, writable: boolean): PropertyTable {
  return table([
    [d('resourcetype'), () => [dav('collection')]],
    [d('displayname'), () => [account.username]],
    [d('owner'), () => [dav('href', principalHref(account.username))]],
    [d('current-user-principal'), () => [dav('href', principalHref(account.username))]],
    [d('current-user-privilege-set'), () => privileges(writable)],
  ]);
}

/** A collection as CalDAV shows it: the inbox or a project. */
export interface CollectionView {
  readonly id: CollectionId;
  readonly displayName: string;
  readonly color: string | null;
  /** The account's change number: the collection's sync token and ctag. */
  readonly headRev: number;
}

export function collectionProperties(account: Account, view: CollectionView, writable: boolean): PropertyTable {
  const token = syncTokenOf(view.headRev);
  const entries: Entry[] = [
    [d('resourcetype'), () => [dav('collection'), caldav('calendar')]],
    [d('displayname'), () => [view.displayName]],
    [c('supported-calendar-component-set'), () => [elementWith(c('comp'), { name: 'VTODO' })]],
    [
      d('supported-report-set'),
      () =>
        ['calendar-query', 'calendar-multiget']
          .map((name) => dav('supported-report', dav('report', caldav(name))))
          .concat(dav('supported-report', dav('report', dav('sync-collection')))),
    ],
    [d('sync-token'), () => [token]],
    [{ ns: NS.calendarServer, name: 'getctag' }, () => [token]],
    [d('getetag'), () => [etagOf(view.headRev)]],
    [d('current-user-privilege-set'), () => privileges(writable)],
    [d('owner'), () => [dav('href', principalHref(account.username))]],
    [d('current-user-principal'), () => [dav('href', principalHref(account.username))]],
  ];
  if (view.color !== null) entries.push([{ ns: NS.apple, name: 'calendar-color' }, () => [view.color ?? '']]);
  return table(entries);
}

export const ICS_CONTENT_TYPE = 'text/calendar; charset=utf-8; component=VTODO';

export function objectProperties(task: Task, calendarData: () => string): PropertyTable {
  return table([
    [d('resourcetype'), () => []],
    [d('getetag'), () => [etagOf(task.rev)]],
    [d('getcontenttype'), () => [ICS_CONTENT_TYPE]],
    [d('getlastmodified'), () => [new Date(Math.floor(task.updated / 1000)).toUTCString()]],
    [c('calendar-data'), () => [calendarData()]],
  ]);
}
