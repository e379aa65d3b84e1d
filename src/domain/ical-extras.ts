import { TASK_LIMITS } from './task.js';

/*
 * A task's kept iCalendar content (Task.icalExtras): the unfolded content lines (RFC 5545 3.1:
 * name, parameters, ":" and value) of what a VTODO had that no field takes, each ended by CRLF,
 * at most TASK_LIMITS.icalExtrasMax characters in all: properties, and whole sub-components
 * (a VALARM, from its BEGIN line to its END line). Only the shape of each line and the nesting of
 * the components are checked here; the iCalendar writer reads the lines back with ical.js.
 */

const CRLF = '\r\n';

/** A property name: an IANA token or an X-name, letters, digits and dashes. */
const PROPERTY_NAME = /^[A-Za-z0-9-]+$/;

/** These open and close components: only in pairs, around a sub-component of the VTODO. */
const COMPONENT_BOUNDS: ReadonlySet<string> = new Set(['BEGIN', 'END']);

/** Components a VTODO cannot hold: kept inside one, they would make another calendar or task. */
const NOT_INSIDE_A_TODO: ReadonlySet<string> = new Set(['VCALENDAR', 'VTODO', 'VEVENT', 'VJOURNAL', 'VTIMEZONE']);

/** How deep kept components may nest (a VALARM holds none; a location of an alarm one more). */
const MAX_COMPONENT_DEPTH = 4;

/** The content lines of kept properties, in order. */
export function icalExtraLines(extras: string): string[] {
  return extras === '' ? [] : extras.slice(0, -CRLF.length).split(CRLF);
}

/** Why `line` is not the content line of one property, or undefined when it is. */
export function contentLineProblem(line: string): string | undefined {
  if (/[\r\n]/.test(line)) return 'a line break inside a content line';
  const nameEnd = line.search(/[;:]/);
  if (nameEnd === -1) return 'no ":" after the property name';
  const name = line.slice(0, nameEnd);
  if (!PROPERTY_NAME.test(name)) return `"${name}" is no property name`;
  if (COMPONENT_BOUNDS.has(name.toUpperCase())) return `${name.toUpperCase()} is no property`;
  if (!line.includes(':', nameEnd)) return 'no ":" before the value';
  return undefined;
}

/** The component a BEGIN or END line names, or undefined for a property's line. */
function componentBound(line: string): { readonly opens: boolean; readonly component: string } | undefined {
  const match = /^(BEGIN|END):([A-Za-z0-9-]+)$/i.exec(line);
  if (match === null) return undefined;
  return { opens: match[1]?.toUpperCase() === 'BEGIN', component: (match[2] ?? '').toUpperCase() };
}

/** Why `extras` is not a task's kept content, or undefined when it is. */
export function icalExtrasProblem(extras: string): string | undefined {
  if (extras.length > TASK_LIMITS.icalExtrasMax) return `longer than ${TASK_LIMITS.icalExtrasMax} characters`;
  if (extras !== '' && !extras.endsWith(CRLF)) return 'each content line ends in CRLF';
  const open: string[] = [];
  for (const line of icalExtraLines(extras)) {
    const bound = componentBound(line);
    if (bound === undefined) {
      const problem = contentLineProblem(line);
      if (problem !== undefined) return `${problem} (${line.slice(0, 60)})`;
    } else if (bound.opens) {
      if (NOT_INSIDE_A_TODO.has(bound.component)) return `a ${bound.component} cannot be kept inside a task`;
      if (open.length >= MAX_COMPONENT_DEPTH) return `components nested deeper than ${MAX_COMPONENT_DEPTH}`;
      open.push(bound.component);
    } else if (open.pop() !== bound.component) {
      return `END:${bound.component} closes no open component`;
    }
  }
  if (open.length > 0) return `BEGIN:${open[open.length - 1] ?? ''} is never closed`;
  return undefined;
}

/** `extras` with `line` appended, or undefined when that would pass the bound. */
export function withExtraLine(extras: string, line: string): string | undefined {
  const longer = `${extras}${line}${CRLF}`;
  return longer.length > TASK_LIMITS.icalExtrasMax ? undefined : longer;
}
