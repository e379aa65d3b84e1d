import ICAL from 'ical.js';

/**
 * A CalDAV calendar object resource as a client PUTs it (RFC 4791 4.1): one VCALENDAR holding the
 * VTODO of one task (time zones beside it are allowed). Anything else is refused with the
 * precondition CalDAV names for it, before anything is stored.
 */

export type CalendarDataPrecondition =
  'valid-calendar-data' | 'valid-calendar-object-resource' | 'supported-calendar-component';

export class CalendarDataError extends Error {
  constructor(
    readonly precondition: CalendarDataPrecondition,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'CalendarDataError';
  }
}

/** Components a task collection does not hold. */
const OTHER_OBJECTS: ReadonlySet<string> = new Set(['vevent', 'vjournal', 'vfreebusy', 'vavailability']);

export interface CalendarResource {
  readonly todo: ICAL.Component;
  readonly uid: string;
  /** The UIDs a RELATED-TO names as this task's parent (RELTYPE=PARENT or none). */
  readonly parentUids: readonly string[];
}

function readCalendar(text: string): ICAL.Component {
  let parsed: unknown;
  try {
    parsed = ICAL.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new CalendarDataError('valid-calendar-data', `the body is not iCalendar: ${why}`);
  }
  // Several calendars in one body parse as a list of them.
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'string')
    throw new CalendarDataError('valid-calendar-object-resource', 'a resource holds one VCALENDAR');
  const calendar = new ICAL.Component(parsed);
  if (calendar.name !== 'vcalendar')
    throw new CalendarDataError('valid-calendar-data', `the body is a ${calendar.name.toUpperCase()}, not a VCALENDAR`);
  return calendar;
}

export function readCalendarResource(text: string): CalendarResource {
  const calendar = readCalendar(text);
  const components = calendar.getAllSubcomponents();
  const other = components.find((component) => OTHER_OBJECTS.has(component.name));
  if (other !== undefined)
    throw new CalendarDataError(
      'supported-calendar-component',
      `a ${other.name.toUpperCase()} cannot be stored here: task collections hold VTODO only`,
    );
  const todos = components.filter((component) => component.name === 'vtodo');
  const [todo] = todos;
  if (todo === undefined) throw new CalendarDataError('valid-calendar-data', 'the VCALENDAR holds no VTODO');
  const uids = new Set(todos.map((each) => String(each.getFirstPropertyValue('uid') ?? '')));
  if (uids.size > 1)
    throw new CalendarDataError(
      'valid-calendar-object-resource',
      'a resource holds one task: the VTODOs have several UIDs',
    );
  if (todos.length > 1)
    throw new CalendarDataError(
      'valid-calendar-object-resource',
      'occurrences changed one by one (RECURRENCE-ID) are not kept: send the task as one VTODO',
    );
  const uid = [...uids][0] ?? '';
  if (uid === '') throw new CalendarDataError('valid-calendar-object-resource', 'the VTODO has no UID');
  const parentUids = todo
    .getAllProperties('related-to')
    .filter((property) => {
      const type = property.getParameter('reltype');
      return type === undefined || String(type).toUpperCase() === 'PARENT';
    })
    .map((property) => String(property.getFirstValue()));
  return { todo, uid, parentUids };
}
