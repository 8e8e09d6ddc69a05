import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import request from 'supertest';
import type { Knex } from 'knex';
import { projectRoot } from '../../src/openapi/document.js';
import { openDatabase } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/core/logger.js';
import { UserRepository } from '../../src/repositories/users.js';
import { NS, testConfig } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';
import { TEST_DATABASE_URL, openTestDatabase } from '../helpers/database.js';
import { answerCheckingListener } from '../contract/answers.js';
import { recordingListener } from '../contract/coverage.js';
import { importFromFile } from '../../src/ops/portable.js';
import { wrongPlainForms } from '../helpers/plain-forms.js';
import { wrongTimeForms } from '../helpers/time-forms.js';

/**
 * `cli export` and `cli import` (docs/export-format.md): a SQLite database filled through the API is
 * exported, imported into the test database's engine (MariaDB on the MySQL leg: the move the docs
 * describe; a second SQLite file otherwise), and exported again: the files are the same from line 2,
 * and every record answers the same through the API on both.
 */

const ADMIN = { login: 'admin', secret: 'admin-secret-0123456789' };
const AUTH = `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.secret}`).toString('base64')}`;

function cli(url: string, ...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: projectRoot(),
    env: { ...process.env, DATABASE_URL: url },
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

type Http = () => ReturnType<typeof request>;
type Rec = Record<string, any>;

function httpOf(db: Knex): Http {
  const app = createApp({ config: testConfig(), db, logger: createLogger('error') });
  const listener = recordingListener(answerCheckingListener(app));
  return () => request(listener);
}

/** Fills the source through the API with every kind of record the format must carry. */
async function fill(http: Http): Promise<{ eventIds: number[]; seriesId: number; deletedId: number }> {
  const post = async (resource: string, body: Record<string, unknown>) => {
    const res = await http().post(`${NS}/${resource}`).set('Authorization', AUTH).send(body);
    expectStatus(res, 201);
    return res.body as { id: number };
  };
  // The child is older than its parent (moved under it later): id order is not parents first.
  const jazz = await post('categories', { name: 'Jazz & blues' });
  const music = await post('categories', { name: 'Musique', description: 'Concerts <b>et</b> récitals' });
  expectStatus(await http().post(`${NS}/categories/${jazz.id}`).set('Authorization', AUTH).send({ parent: music.id }), 200);
  const tag = await post('tags', { name: 'Ünïcödé', slug: 'ünïcödé' });
  const venue = await post('venues', { venue: 'Salle Pleyel', city: 'Paris', country: 'France', show_map: false });
  const organizer = await post('organizers', { organizer: 'Zoë Müller', email: 'zoe@example.com' });
  const ids: number[] = [];
  const event = async (body: Record<string, unknown>) => {
    const created = await post('events', body);
    ids.push(created.id);
    return created;
  };
  await event({
    title: 'Concert à l’Opéra',
    slug: 'concert-à-lopéra',
    description: '<p>Un soir — “unique”</p>',
    start_date: '2027-05-01 20:00:00',
    end_date: '2027-05-01 23:00:00',
    timezone: 'America/New_York',
    venue: venue.id,
    organizer: [organizer.id],
    categories: [jazz.id],
    tags: [tag.id],
    cost: '10 – 20',
    image: 'https://example.com/photos/opéra.jpg',
  });
  await event({ title: 'Winter fair', start_date: '2027-12-24', end_date: '2027-12-26', all_day: true, timezone: 'Europe/Berlin', categories: [music.id] });
  await event({ title: 'Not yet', status: 'draft', start_date: '2027-06-01 10:00:00', end_date: '2027-06-01 11:00:00', categories: [music.id] });
  await event({ title: 'Members only', password: 'sésame', start_date: '2027-06-02 10:00:00', end_date: '2027-06-02 11:00:00', timezone: 'Asia/Tokyo' });
  const series = await event({
    title: 'Standup',
    start_date: '2027-03-01 09:00:00',
    end_date: '2027-03-01 09:30:00',
    timezone: 'Europe/Paris',
    recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
    tags: [tag.id],
  });
  const occurrences = await http().get(`${NS}/events/${series.id}/occurrences?start_date=2027-02-01&end_date=2027-12-31&per_page=50`).set('Authorization', AUTH);
  expectStatus(occurrences, 200);
  const later = (occurrences.body.events as Array<{ id: number }>).map((e) => e.id);
  assert.equal(later.length, 6);
  // An exception moved to another day, and an occurrence deleted (an EXDATE in the rules).
  expectStatus(
    await http()
      .patch(`${NS}/events/${later[2]}?scope=this`)
      .set('Authorization', AUTH)
      .send({ title: 'Retro', start_date: '2027-03-16 14:00:00', end_date: '2027-03-16 15:00:00' }),
    200,
  );
  expectStatus(await http().delete(`${NS}/events/${later[4]}?scope=this&force=true`).set('Authorization', AUTH), 200);
  ids.push(...later.slice(1).filter((id) => id !== later[4]));
  // A trashed event (it keeps the status it came from), and a newest record deleted for good: its id
  // must not be given again.
  const trashed = await event({ title: 'Cancelled', start_date: '2027-07-01 10:00:00', end_date: '2027-07-01 11:00:00' });
  expectStatus(await http().delete(`${NS}/events/${trashed.id}`).set('Authorization', AUTH), 200);
  const gone = await post('venues', { venue: 'Gone' });
  expectStatus(await http().delete(`${NS}/venues/${gone.id}?force=true`).set('Authorization', AUTH), 200);
  return { eventIds: ids, seriesId: series.id, deletedId: gone.id };
}

/** What the API answers about every record, as the administrator sees it. */
async function answers(http: Http, eventIds: number[], seriesId: number): Promise<unknown[]> {
  const out: unknown[] = [];
  const get = async (url: string) => {
    const res = await http().get(`${NS}/${url}`).set('Authorization', AUTH);
    expectStatus(res, 200);
    // supertest gives each app its own port, which every URL of an answer names.
    out.push(JSON.parse(JSON.stringify(res.body).replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://host')));
  };
  for (const id of eventIds) await get(`events/${id}`);
  await get(`events/${seriesId}/occurrences?start_date=2027-02-01&end_date=2027-12-31&per_page=50`);
  await get('events?start_date=2027-01-01&end_date=2027-12-31&per_page=50&status=publish,draft,private,trash');
  // The search index is rebuilt by the import (MySQL's trigram rows, SQLite's FTS table).
  await get('events?start_date=2027-01-01&end_date=2027-12-31&search=op%C3%A9ra');
  await get('events?start_date=2027-01-01&end_date=2027-12-31&search=standup');
  for (const list of ['categories', 'tags', 'venues', 'organizers']) await get(`${list}?per_page=50`);
  return out;
}

describe('cli export and import (docs/export-format.md)', function () {
  this.timeout(180_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-'));
  const sourceUrl = `sqlite:${path.join(dir, 'source.sqlite')}`;
  const first = path.join(dir, 'first.jsonl');
  let source: Knex;
  let sourceHttp: Http;
  let filled: { eventIds: number[]; seriesId: number; deletedId: number };
  const targets: Knex[] = [];

  const databases: string[] = [];

  /**
   * An empty database to import into: on the MySQL leg a new database beside the test database (the
   * move from the embedded default to MySQL/MariaDB), else a new SQLite file. Never the shared test
   * database itself: an import sets the id counters back to the file's, and the test apps remember
   * records by id between tests, so later tests would meet another record's remembered copy.
   */
  async function emptyTarget(): Promise<{ url: string; db: Knex }> {
    let url = `sqlite:${path.join(dir, `target-${targets.length}.sqlite`)}`;
    if (!TEST_DATABASE_URL.startsWith('sqlite:')) {
      const name = `${new URL(TEST_DATABASE_URL).pathname.slice(1)}_import${targets.length}`;
      const { db: shared } = await openTestDatabase();
      await shared.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await shared.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      databases.push(name);
      const target = new URL(TEST_DATABASE_URL);
      target.pathname = `/${name}`;
      url = target.toString();
    }
    const { db } = openDatabase(url);
    await migrateLatest(db);
    targets.push(db);
    return { url, db };
  }

  before(async () => {
    source = openDatabase(sourceUrl).db;
    await migrateLatest(source);
    await new UserRepository(source).add(ADMIN.login, 'administrator', ADMIN.secret);
    await new UserRepository(source).add('Emile', 'author', undefined, 'émile@example.com');
    sourceHttp = httpOf(source);
    filled = await fill(sourceHttp);
    const exported = cli(sourceUrl, 'export', first);
    assert.equal(exported.status, 0, exported.stderr);
    assert.match(exported.stdout, /2 user, 2 category, 1 tag, 1 image, 1 venue, 1 organizer, 10 event/);
  });

  after(async () => {
    await source?.destroy();
    for (const db of targets) await db.destroy();
    const { db: shared } = await openTestDatabase();
    for (const name of databases) await shared.raw(`DROP DATABASE IF EXISTS \`${name}\``);
  });

  it('round-trips every kind of record: the second export is the first, and the API answers the same', async () => {
    const { eventIds, seriesId } = filled;
    const lines = fs.readFileSync(first, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 1 + 2 + 2 + 1 + 1 + 1 + 1 + 10);
    const header = JSON.parse(lines[0]);
    assert.equal(header.kind, 'header');
    assert.equal(header.record.engine, 'sqlite');
    assert.ok(
      lines.every((line) => !line.includes(ADMIN.secret)),
      'no secret is exported',
    );
    const records = lines.slice(1).map((line) => JSON.parse(line));
    assert.deepEqual(
      records.filter((r) => r.kind === 'category').map((r) => r.record.name),
      ['Musique', 'Jazz & blues'],
      'parents first',
    );
    const firstOfSeries = records.find((r) => r.record.id === seriesId).record;
    assert.deepEqual(firstOfSeries.series.recurrence.length, 2, 'the rule and its EXDATE');
    assert.ok(records.some((r) => r.kind === 'event' && r.record.exception === true && r.record.series_id === seriesId));
    assert.ok(records.some((r) => r.kind === 'event' && r.record.password === 'sésame'));

    const target = await emptyTarget();
    const imported = cli(target.url, 'import', first);
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(imported.stdout, /secret add LOGIN/);
    // The plain forms are made by the import as a write makes them, not carried by the file (src/text/plain-forms.ts).
    assert.deepEqual(await wrongPlainForms(target.db), []);
    assert.deepEqual(await wrongTimeForms(target.db), []);

    const second = path.join(dir, 'second.jsonl');
    assert.equal(cli(target.url, 'export', second).status, 0);
    const again = fs.readFileSync(second, 'utf8').split('\n');
    assert.equal(again.slice(1).join('\n'), lines.slice(1).join('\n') + '\n', 'the same records, byte for byte');
    assert.deepEqual(JSON.parse(again[0]).record.counts, header.record.counts);
    assert.deepEqual(JSON.parse(again[0]).record.next_ids, header.record.next_ids);
    assert.equal(header.record.next_ids.posts, filled.deletedId + 1);

    assert.equal(JSON.parse(again[0]).record.engine, TEST_DATABASE_URL.startsWith('sqlite:') ? 'sqlite' : 'mysql');

    // Users come without secrets: they get new ones from the CLI, and then they can write.
    const listed = JSON.parse(cli(target.url, 'user', 'list', '--json').stdout) as Array<{ login: string; secrets: number }>;
    assert.deepEqual(
      listed.map((u) => [u.login, u.secrets]),
      [
        ['admin', 0],
        ['Emile', 0],
      ],
    );
    assert.equal(cli(target.url, 'secret', 'add', ADMIN.login, '--secret', ADMIN.secret).status, 0);
    const targetHttp = httpOf(target.db);
    // The change feed of the new database starts with every record once.
    const feed = await targetHttp().get(`${NS}/changes?per_page=500`).set('Authorization', AUTH);
    expectStatus(feed, 200);
    const fed = (feed.body.changes as Array<{ type: string; id: number }>).map((c) => `${c.type}:${c.id}`).sort();
    const held = records
      .filter((r) => r.kind !== 'user' && r.kind !== 'image')
      .map((r) => `${r.kind}:${r.record.id}`)
      .sort();
    assert.deepEqual(fed, held);
    // A cursor of the old database's feed is no cursor of the new one: 400, never a silent gap.
    const oldCursor = (await sourceHttp().get(`${NS}/events?per_page=1`).set('Authorization', AUTH)).headers['x-tec-change-cursor'] as string;
    const refused = await targetHttp()
      .get(`${NS}/changes?after=${encodeURIComponent(oldCursor)}`)
      .set('Authorization', AUTH);
    expectStatus(refused, 400);
    assert.equal(refused.body.code, 'rest_invalid_param');
    assert.deepEqual(await answers(targetHttp, eventIds, seriesId), await answers(sourceHttp, eventIds, seriesId));

    // New records continue after the imported ids, and the imported slugs are taken.
    const created = await targetHttp().post(`${NS}/venues`).set('Authorization', AUTH).send({ venue: 'Salle Gaveau', slug: 'salle-pleyel' });
    expectStatus(created, 201);
    assert.ok(created.body.id > filled.deletedId, `the new id ${created.body.id} comes after the deleted ${filled.deletedId}`);
    assert.equal(created.body.slug, 'salle-pleyel-2');
  });

  it('imports more records than one statement of the change log could announce (9,000 tags: 36,000 values on SQLite)', async () => {
    const target = await emptyTarget();
    const n = 9000;
    const tag = (i: number) => ({ id: i, name: `Tag ${i}`, slug: `tag-${i}`, description: '', parent: 0, count: 0, name_key: `tag ${i}`, version: 1 });
    const header = { format: 'tec-events-export', version: 1, engine: 'sqlite', exported_at: '2026-11-27 00:00:00', counts: { tag: n }, next_ids: { terms: n + 1 } };
    const file = path.join(dir, 'many.jsonl');
    const lines = [{ kind: 'header', record: header }, ...Array.from({ length: n }, (_, i) => ({ kind: 'tag', record: tag(i + 1) }))];
    fs.writeFileSync(file, lines.map((line) => JSON.stringify(line) + '\n').join(''));
    const imported = cli(target.url, 'import', file);
    assert.equal(imported.status, 0, imported.stderr.slice(0, 500));
    assert.equal(Number((await target.db('changes').where('type', 'tag').count({ c: '*' }).first())?.c), n);
  });

  it('refuses a file that breaks the rules of the API’s writes, naming the line and the field, and writes nothing', async () => {
    const lines = fs
      .readFileSync(first, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const lineOf = (kind: string, which = 0) => lines.map((l, i) => (l.kind === kind ? i : -1)).filter((i) => i >= 0)[which];
    const event = lineOf('event');
    const occurrence = lines.findIndex((l) => l.kind === 'event' && l.record.series_id !== null && l.record.series_id !== l.record.id);
    // An author's HTML must be as the API cleans it; an administrator's is kept as written (docs/limits.md "Imports").
    const byAuthor = (r: Rec) => (r.author = lines[lineOf('user', 1)].record.id);
    // [what the file says, the line changed, its change, the line and field named]
    const cases: Array<[string, number, (record: Rec) => void, string]> = [
      ['an unknown status', event, (r) => (r.status = 'hacked'), 'status'],
      ['an unknown time zone', event, (r) => (r.timezone = 'Mars/Olympus'), 'timezone'],
      ['a date that does not exist', event, (r) => (r.start_date = '2027-02-30 25:61:00'), 'start_date'],
      ['a negative id', event, (r) => (r.id = -3), 'id'],
      ['a negative version', event, (r) => (r.version = -5), 'version'],
      ['a series that is not in the file', occurrence, (r) => (r.series_id = 999), 'series_id'],
      ['a venue that is not in the file', event, (r) => (r.venue = [999]), 'venue'],
      ['an unknown role', lineOf('user'), (r) => (r.role = 'superadmin'), 'role'],
      ['a login differing from another only in case', lineOf('user', 1), (r) => (r.login = 'ADMIN'), 'login'],
      ['a script', event, (r) => ((r.description = '<p>Hi</p><script>alert(1)</script>'), byAuthor(r)), 'description'],
      ['an event handler', lineOf('venue'), (r) => ((r.description = '<p onclick="steal()">Hi</p>'), byAuthor(r)), 'description'],
      ['a javascript: link', lineOf('category'), (r) => (r.description = '<a href="javascript:steal()">x</a>'), 'description'],
      ['an SVG with onload', event, (r) => ((r.excerpt = '<svg onload="steal()"></svg>'), byAuthor(r)), 'excerpt'],
      ['HTML in a title', event, (r) => (r.title = '<b>Bold</b>'), 'title'],
      ['a slug with a path in it', event, (r) => (r.slug = '../../etc'), 'slug'],
      ['an id past 2^31 - 1', 0, (r) => (r.next_ids.posts = 9007199254740990), 'next_ids.posts'],
    ];
    const target = await emptyTarget();
    for (const [what, at, change, field] of cases) {
      const changed = structuredClone(lines);
      change(changed[at].record);
      const file = path.join(dir, 'hostile.jsonl');
      fs.writeFileSync(file, changed.map((line) => JSON.stringify(line) + '\n').join(''));
      await assert.rejects(
        importFromFile(target.db, file),
        (err: Error) => {
          assert.ok(err.message.startsWith(`line ${at + 1}: "${field}" `), `${what}: ${err.message}`);
          assert.doesNotMatch(err.message, /insert into|select /i, `${what}: no SQL`);
          return true;
        },
        what,
      );
    }
    assert.deepEqual(
      await Promise.all(['users', 'posts', 'terms'].map(async (table) => Number((await target.db(table).count({ n: '*' }).first())?.n))),
      [0, 0, 0],
      'nothing written',
    );
    const file = () => path.join(dir, 'hostile.jsonl');
    // Through the command: exit 1 and the same line.
    const refused = cli(target.url, 'import', path.join(dir, 'hostile.jsonl'));
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /^error: line 1: "next_ids\.posts" is 9007199254740990: not an integer from 1 to 2147483648\n$/);
    const embedded = structuredClone(lines);
    embedded[event].record.description = '<iframe src="https://video.example/embed/1"></iframe>';
    fs.writeFileSync(file(), embedded.map((line) => JSON.stringify(line) + '\n').join(''));
    assert.equal(cli((await emptyTarget()).url, 'import', file()).status, 0, 'an administrator’s embedded video imports as written');
  });

  it('refuses a database that is not empty, a file cut short, and overwriting without --force', async () => {
    const target = await emptyTarget();
    const cut = path.join(dir, 'cut.jsonl');
    fs.writeFileSync(cut, fs.readFileSync(first, 'utf8').trimEnd().split('\n').slice(0, -1).join('\n') + '\n');
    const refused = cli(target.url, 'import', cut);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /the header counts 10 event record\(s\), the file holds 9/);

    assert.equal(cli(target.url, 'import', first).status, 0);
    const again = cli(target.url, 'import', first);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /the database is not empty \(2 user\(s\), 13 post\(s\), 3 term\(s\)\)/);

    const missing = cli(target.url, 'import', path.join(dir, 'no-such-file.jsonl'));
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^error: cannot read .*no-such-file\.jsonl: ENOENT/);
    const nowhere = cli(sourceUrl, 'export', path.join(dir, 'no-such-dir', 'x.jsonl'));
    assert.equal(nowhere.status, 1);
    assert.match(nowhere.stderr, /^error: cannot write .*x\.jsonl: ENOENT/);

    const kept = cli(sourceUrl, 'export', first);
    assert.equal(kept.status, 1);
    assert.match(kept.stderr, /exists; give --force/);
    assert.equal(cli(sourceUrl, 'export', first, '--force').status, 0);
  });
});
