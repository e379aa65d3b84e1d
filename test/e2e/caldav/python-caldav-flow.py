"""
The python3-caldav library (Debian's) against a running task-service: discovery from the
principal, listing calendars, saving a VTODO, searching open tasks, completing one, and a sync
by token. Prints one JSON object of what it saw; the test (caldav-clients.test.ts) checks it.
Usage: python-caldav-flow.py URL USERNAME APP_PASSWORD
"""
import json
import sys

import caldav

url, username, password = sys.argv[1:4]
client = caldav.DAVClient(url=url, username=username, password=password)
principal = client.principal()
calendars = principal.calendars()
seen = {"calendars": sorted(str(calendar.name) for calendar in calendars)}
inbox = next(calendar for calendar in calendars if str(calendar.url).rstrip("/").endswith("/inbox"))

todo = inbox.save_todo(
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//python-caldav flow//EN\r\n"
    "BEGIN:VTODO\r\nUID:python-caldav-1\r\nDTSTAMP:20261101T100000Z\r\n"
    "SUMMARY:From python-caldav\r\nPRIORITY:1\r\nX-PYTHON-FLOW:kept\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
)
seen["saved_url"] = str(todo.url)

sync = inbox.objects_by_sync_token(load_objects=False)
seen["first_sync"] = sorted(str(item.url).rsplit("/", 1)[-1] for item in sync)
token = sync.sync_token

seen["open_before"] = sorted(
    str(item.icalendar_component["summary"]) for item in inbox.todos()
)
todo.complete()
seen["open_after"] = sorted(
    str(item.icalendar_component["summary"]) for item in inbox.todos()
)
seen["all_after"] = sorted(
    str(item.icalendar_component["summary"]) for item in inbox.todos(include_completed=True)
)
changes = inbox.objects_by_sync_token(sync_token=token, load_objects=True)
seen["changed"] = sorted(str(item.url).rsplit("/", 1)[-1] for item in changes)
fetched = inbox.todo_by_uid("python-caldav-1")
seen["kept"] = str(fetched.icalendar_component.get("x-python-flow"))
seen["status"] = str(fetched.icalendar_component.get("status"))
print(json.dumps(seen))
