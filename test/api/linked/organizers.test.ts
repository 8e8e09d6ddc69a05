import { describeSharedLinkedBehaviour } from '../shared/linked-behaviour.js';
import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, testApp, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { ORGANIZER, PUBLIC_URL, VENUE, call, collectionPath, createLinked, itemPath, listLinked, namesIn, readLinked, type Http, type LinkedRecord } from '../../helpers/linked.js';

describe('organizers: /organizers, /organizers/{id} and /organizers/by-slug/{slug}', () => {
  describeSharedLinkedBehaviour(ORGANIZER, VENUE);

  describe('organizers only', () => {
    let http: Http;
    let users: Record<Role, TestUser>;

    /** Creates an organizer as an editor. */
    const createOrganizer = (organizer: string, extra: Record<string, unknown> = {}): Promise<LinkedRecord> => createLinked(http, ORGANIZER, users.editor, { organizer, ...extra });
    const postOrganizer = (body: Record<string, unknown>) => call(http, 'post', collectionPath(ORGANIZER), users.editor, body);

    beforeEach(async () => {
      ({ http } = await testApp({ publicUrl: PUBLIC_URL }));
      users = await createUsers();
    });

    describe('email', () => {
      it('accepts plausible addresses and an empty string', async () => {
        for (const email of ['org@example.test', 'first.last+tag@sub.example.org', 'UPPER@EXAMPLE.COM']) {
          assert.equal((await createOrganizer(`Mail ${email}`, { email })).email, email);
        }
        assert.equal('email' in (await createOrganizer('No mail', { email: '' })), false);
      });

      // As the plugin (its e-mail is free text): a site moving here holds such values (docs/contract.md §6).
      it('keeps a value that is not an e-mail address as text, on create and update, and links only addresses', async () => {
        const organizer = await createOrganizer('Reachable', { email: 'ok@example.test' });
        const bad = await postOrganizer({ organizer: 'Bad mail', email: '<b>ask</b> at the desk' });
        expectStatus(bad, 201);
        assert.equal(bad.body.email, 'ask at the desk', 'tags stripped, as every plain-text field');
        assert.equal(((await readLinked(http, ORGANIZER, bad.body.id)).json_ld as Record<string, unknown>).email, undefined, 'schema.org gets addresses only');
        const patched = await call(http, 'patch', itemPath(ORGANIZER, organizer.id), users.editor, { email: 'not-an-email' });
        expectStatus(patched, 200);
        assert.equal(patched.body.email, 'not-an-email');
        const page = await http().get(`/organizer/${organizer.slug}/`);
        assert.ok(page.text.includes('not-an-email') && !page.text.includes('mailto:not-an-email'), 'the page shows the text, unlinked');
      });
    });

    it('describes the organizer as a schema.org Person in json_ld, the same on every read', async () => {
      const organizer = await createOrganizer('Peer Test Org', {
        description: 'An organizer created through the REST API.',
        phone: '+1 217 555 0199',
        website: 'https://org.example.test',
        email: 'org@example.test',
      });
      const read = await readLinked(http, ORGANIZER, organizer.id);
      const ld = read.json_ld as Record<string, unknown>;
      assert.equal(ld['@type'], 'Person');
      assert.equal(ld.name, 'Peer Test Org');
      assert.ok(String(ld.description).includes('An organizer created through the REST API.'), String(ld.description));
      assert.equal(ld.url, 'https://org.example.test');
      assert.equal(ld.telephone, '+1 217 555 0199');
      assert.equal(ld.sameAs, 'https://org.example.test');
      assert.ok(typeof ld.email === 'string' && ld.email !== '', 'the e-mail is given');
      for (let i = 0; i < 3; i++) assert.deepEqual((await readLinked(http, ORGANIZER, organizer.id)).json_ld, ld, 'no random e-mail encoding');
      const bySlug = await http().get(`${collectionPath(ORGANIZER)}/by-slug/${organizer.slug}`);
      assert.deepEqual(bySlug.body.json_ld, ld);
    });

    it('finds the organizers whose e-mail contains every word of "@common.com"', async () => {
      await createOrganizer('Alice', { email: 'alice@common.com' });
      await createOrganizer('Bob', { email: 'bob@common.com' });
      await createOrganizer('Carol', { email: 'carol@other.org' });
      const res = await listLinked(http, ORGANIZER, `search=${encodeURIComponent('@common.com')}`);
      assert.deepEqual(namesIn(res, ORGANIZER), ['Bob', 'Alice']);
      assert.equal(res.body.total, 2);
    });

    it('has no venue fields: address, map flags and coordinates are ignored', async () => {
      const organizer = await createOrganizer('Not a venue', { address: '1 Main Street', city: 'Springfield', show_map: false, geo_lat: 1, geo_lng: 2, venue: 'Hall' });
      for (const key of ['address', 'city', 'show_map', 'show_map_link', 'geo_lat', 'geo_lng', 'venue']) assert.equal(key in organizer, false, key);
      const res = await postOrganizer({ organizer: 'Also not a venue', show_map: 'maybe' });
      expectStatus(res, 201);
    });
  });
});
