import { TASK_LIMITS } from './task.js';

/*
 * A task's kept iCalendar properties (Task.icalExtras): the unfolded content lines (RFC 5545
 * 3.1: name, parameters, ":" and value) of the properties an imported VTODO had that no field
 * takes, each ended by CRLF, at most TASK_LIMITS.icalExtrasMax characters in all. Only the shape
 * of each line is checked here; the iCalendar writer reads the lines back as properties.
 */

const CRLF = '\r\n';

/** A property name: an IANA token or an X-name, letters, digits and dashes. */
const PROPERTY_NAME = /^[A-Za-z0-9-]+$/;

/** These open and close components: as a line among properties they would break the VTODO. */
const COMPONENT_BOUNDS: ReadonlySet<string> = new Set(['BEGIN', 'END']);

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

/** Why `extras` is not a task's kept properties, or undefined when it is. */
export function icalExtrasProblem(extras: string): string | undefined {
  if (extras.length > TASK_LIMITS.icalExtrasMax) return `longer than ${TASK_LIMITS.icalExtrasMax} characters`;
  if (extras !== '' && !extras.endsWith(CRLF)) return 'each content line ends in CRLF';
  for (const line of icalExtraLines(extras)) {
    const problem = contentLineProblem(line);
    if (problem !== undefined) return `${problem} (${line.slice(0, 60)})`;
  }
  return undefined;
}

/** `extras` with `line` appended, or undefined when that would pass the bound. */
export function withExtraLine(extras: string, line: string): string | undefined {
  const longer = `${extras}${line}${CRLF}`;
  return longer.length > TASK_LIMITS.icalExtrasMax ? undefined : longer;
}
