#!/usr/bin/env bash
# One series read by independent iCalendar consumers (docs/contract.md §11, §14): node-ical (npm),
# python-icalendar with recurring-ical-events, and khal (Debian packages python3-icalendar,
# python3-recurring-ical-events, khal). Against a running service:
#
#   scripts/ical-consumers/check.sh http://127.0.0.1:8080/wp-json/tribe/events/v1 admin:SECRET
#
# It creates a weekly series of six in Europe/Berlin, moves the third (time and title, scope=this),
# deletes the fourth, makes the fifth a draft, then writes three calendars (the first event's, the
# moved occurrence's, /events.ics for the first week only) and prints the instances each consumer
# reads from them. Each should list 3, 10 March 18:00, 19 March 19:00 "(moved)", 7 April 18:00
# under the series' UID; the occurrence's calendar one event of its own UID; khal's list after
# importing the occurrence's calendar still holds the whole series.
set -euo pipefail
API=$1
AUTH=$2
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
ID=$(curl -sf -u "$AUTH" -X POST "$API/events" -H 'Content-Type: application/json' \
  -d '{"title":"Choir","start_date":"2027-03-03 18:00:00","end_date":"2027-03-03 19:30:00","timezone":"Europe/Berlin","status":"publish","recurrence":["RRULE:FREQ=WEEKLY;COUNT=6"]}' | json 'd["id"]')
read -r -a OCC <<<"$(curl -sf "$API/events/$ID/occurrences?start_date=2027-03-01&end_date=2027-12-31" | json '" ".join(str(e["id"]) for e in d["events"])')"
curl -sf -o /dev/null -u "$AUTH" -X PATCH "$API/events/${OCC[2]}?scope=this" -H 'Content-Type: application/json' \
  -d '{"title":"Choir (moved)","start_date":"2027-03-19 19:00:00","end_date":"2027-03-19 20:30:00"}'
curl -sf -o /dev/null -u "$AUTH" -X DELETE "$API/events/${OCC[3]}?scope=this"
curl -sf -o /dev/null -u "$AUTH" -X PATCH "$API/events/${OCC[4]}?scope=this" -H 'Content-Type: application/json' -d '{"status":"draft"}'
curl -sf "$API/events/$ID/ics" >"$WORK/series.ics"
curl -sf "$API/events/${OCC[2]}/ics" >"$WORK/occurrence.ics"
curl -sf "$API/events.ics?start_date=2027-03-01&end_date=2027-03-05" >"$WORK/feed.ics"

echo '== node-ical'
(cd "$WORK" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund node-ical >/dev/null && cp "$HERE/node-ical.mjs" . && node node-ical.mjs series.ics occurrence.ics feed.ics)
echo '== python-icalendar, recurring-ical-events'
/usr/bin/python3 "$HERE/python.py" "$WORK/series.ics" "$WORK/occurrence.ics" "$WORK/feed.ics"
echo '== khal'
mkdir -p "$WORK/khal/cal"
printf '[calendars]\n[[test]]\npath = %s/khal/cal\ntype = calendar\n[locale]\nlocal_timezone = Europe/Berlin\ndefault_timezone = Europe/Berlin\ntimeformat = %%H:%%M\ndateformat = %%Y-%%m-%%d\nlongdateformat = %%Y-%%m-%%d\ndatetimeformat = %%Y-%%m-%%d %%H:%%M\nlongdatetimeformat = %%Y-%%m-%%d %%H:%%M\n[default]\ndefault_calendar = test\n' "$WORK" >"$WORK/khal/config"
export XDG_DATA_HOME="$WORK/khal/data"
khal -c "$WORK/khal/config" import --batch "$WORK/series.ics"
echo '-- the series'
khal -c "$WORK/khal/config" list --format '{start} {title}' 2027-03-01 2027-04-30
khal -c "$WORK/khal/config" import --batch "$WORK/occurrence.ics"
echo '-- then the moved occurrence (an event of its own: the series stays whole)'
khal -c "$WORK/khal/config" list --format '{start} {title}' 2027-03-01 2027-04-30
rm -rf "$WORK"
