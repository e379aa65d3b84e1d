import { makeZip } from './zip.js';

/** Todoist's documented columns; a backup made by hand, one CSV per project. */
const TODOIST_HEADER = 'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE';

export function todoistBackup(): Buffer {
  const home = [
    TODOIST_HEADER,
    'section,Garden,,,,,,,,',
    'task,Water the plants @garden @daily,Both balconies,1,1,Ann (1),,every monday,en,Europe/Berlin',
    'note,"Use the rain barrel, not the tap",,,,Ann (1),,,,',
    'task,Sub step,,4,2,Ann (1),,,en,Europe/Berlin',
    'task,"Pay rent, on time",,2,1,Ann (1),,every month,en,Europe/Berlin',
    'task,Dentist,,3,1,Ann (1),,2026-12-03 09:30,en,Europe/Berlin',
    'task,Someday,,4,1,Ann (1),,next spring,en,Europe/Berlin',
    'task,Jeden Tag,,4,1,Ann (1),,jeden Tag,de,Europe/Berlin',
    'task,Post the letter @errands,,4,1,Ann (1),,tomorrow at 9am,en,Europe/Berlin',
    'task,Mow the lawn,,4,1,Ann (1),,,en,Europe/Berlin',
    'meta,view_style=list,,,,,,,,',
  ].join('\r\n');
  const inbox = [TODOIST_HEADER, 'task,Buy milk,,4,1,Ann (1),,,en,Europe/Berlin'].join('\n');
  return makeZip(
    [
      { name: 'Home [2203306141].csv', text: home },
      { name: 'Inbox [2203306140].csv', text: inbox },
    ],
    new Date(Date.UTC(2026, 10, 25)), // a Wednesday
  );
}
