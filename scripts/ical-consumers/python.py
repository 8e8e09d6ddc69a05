# The VEVENTs python-icalendar reads from each calendar given, and the instances recurring-ical-events expands (scripts/ical-consumers/check.sh).
import sys, icalendar
try:
    import recurring_ical_events
except ImportError:
    recurring_ical_events = None
for path in sys.argv[1:]:
    cal = icalendar.Calendar.from_ical(open(path, 'rb').read())
    vevents = [c for c in cal.walk('VEVENT')]
    print(path, 'python-icalendar', icalendar.__version__ if hasattr(icalendar, '__version__') else '', 'VEVENTs:', [(str(v['UID']), str(v['SUMMARY']), v.get('RECURRENCE-ID').dt.isoformat() if v.get('RECURRENCE-ID') else None) for v in vevents])
    if recurring_ical_events:
        rows = sorted((e['DTSTART'].dt.isoformat(), str(e['SUMMARY']), str(e['UID'])) for e in recurring_ical_events.of(cal).between((2027, 1, 1), (2028, 1, 1)))
        print(path, 'recurring_ical_events:', rows)
