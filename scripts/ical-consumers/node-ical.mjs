// One calendar per argument: the instances node-ical reads (its RRULE expanded, EXDATEs and RECURRENCE-ID overrides applied), for scripts/ical-consumers/check.sh.
import ical from 'node-ical';
import fs from 'node:fs';
for (const file of process.argv.slice(2)) {
  const data = ical.sync.parseICS(fs.readFileSync(file, 'utf8'));
  const out = [];
  for (const ev of Object.values(data)) {
    if (ev.type !== 'VEVENT') continue;
    if (!ev.rrule) {
      out.push([ev.start.toISOString(), ev.summary, ev.uid]);
      continue;
    }
    const dates = ev.rrule.between(new Date('2027-01-01'), new Date('2028-01-01'), true);
    for (const date of dates) {
      const key = date.toISOString().slice(0, 10);
      if (ev.exdate && Object.keys(ev.exdate).some((k) => k.startsWith(key))) continue;
      const override = ev.recurrences && Object.entries(ev.recurrences).find(([k]) => k.startsWith(key));
      if (override) out.push([override[1].start.toISOString(), override[1].summary, ev.uid]);
      else out.push([date.toISOString(), ev.summary, ev.uid]);
    }
  }
  console.log(file, JSON.stringify(out.sort(), null, 0));
}
