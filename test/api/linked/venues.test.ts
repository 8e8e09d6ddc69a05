import { describeSharedLinkedBehaviour } from '../shared/linked-behaviour.js';
import assert from 'node:assert/strict';
import type { Role } from '../../../src/auth/capabilities.js';
import { createUsers, testApp, type TestUser } from '../../helpers/app.js';
import { expectStatus } from '../../helpers/assertions.js';
import { ORGANIZER, PUBLIC_URL, VENUE, call, collectionPath, createLinked, expectInvalidParam, itemPath, readLinked, type Http, type LinkedRecord } from '../../helpers/linked.js';

describe('venues: /venues, /venues/{id} and /venues/by-slug/{slug}', () => {
  describeSharedLinkedBehaviour(VENUE, ORGANIZER);

  describe('venues only', () => {
    let http: Http;
    let users: Record<Role, TestUser>;

    /** Creates a venue as an editor. */
    const createVenue = (venue: string, extra: Record<string, unknown> = {}): Promise<LinkedRecord> => createLinked(http, VENUE, users.editor, { venue, ...extra });
    const postVenue = (body: Record<string, unknown>) => call(http, 'post', collectionPath(VENUE), users.editor, body);
    const patchVenue = (id: number, body: Record<string, unknown>) => call(http, 'patch', itemPath(VENUE, id), users.editor, body);
    const flags = (record: Record<string, unknown>) => [record.show_map, record.show_map_link];

    beforeEach(async () => {
      ({ http } = await testApp({ publicUrl: PUBLIC_URL }));
      users = await createUsers();
    });

    describe('show_map and show_map_link', () => {
      it('are true when omitted, and always present', async () => {
        const venue = await createVenue('Mapped');
        assert.deepEqual(flags(venue), [true, true]);
        assert.deepEqual(flags(await readLinked(http, VENUE, venue.id)), [true, true]);
      });

      it('accept JSON booleans (the plugin rejects them)', async () => {
        assert.deepEqual(flags(await createVenue('Off', { show_map: false, show_map_link: false })), [false, false]);
        assert.deepEqual(flags(await createVenue('On', { show_map: true, show_map_link: false })), [true, false]);
      });

      it('accept the string forms "true", "false", "yes", "1" and "0"', async () => {
        const cases: Array<[string, boolean]> = [
          ['true', true],
          ['false', false],
          ['yes', true],
          ['1', true],
          ['0', false],
          ['TRUE', true],
          ['False', false],
        ];
        for (const [value, expected] of cases) {
          const venue = await createVenue(`Flag ${value}`, { show_map: value, show_map_link: value });
          assert.deepEqual(flags(venue), [expected, expected], value);
        }
      });

      it('accept show_map=0 in a form-encoded body', async () => {
        const res = await http().post(collectionPath(VENUE)).set('Authorization', users.editor.authorization).type('form').send('venue=Form+Venue&show_map=0&show_map_link=true');
        expectStatus(res, 201);
        assert.deepEqual(flags(res.body), [false, true]);
        const other = await http().post(collectionPath(VENUE)).set('Authorization', users.editor.authorization).type('form').send('venue=Form+Two&show_map_link=false');
        assert.deepEqual(flags(other.body), [true, false]);
      });

      it('are not reset by an update that does not send them, and change one at a time', async () => {
        const venue = await createVenue('Hidden Map', { show_map: false, show_map_link: false });
        assert.deepEqual(flags((await patchVenue(venue.id, { city: 'Paris' })).body), [false, false]);
        for (const method of ['post', 'put'] as const) {
          const res = await call(http, method, itemPath(VENUE, venue.id), users.editor, { venue: `Renamed ${method}` });
          assert.deepEqual(flags(res.body), [false, false], method);
        }
        assert.deepEqual(flags((await patchVenue(venue.id, { show_map: 'yes' })).body), [true, false]);
        assert.deepEqual(flags((await patchVenue(venue.id, { show_map_link: true })).body), [true, true]);
        assert.deepEqual(flags((await patchVenue(venue.id, { show_map: '0' })).body), [false, true]);
        assert.deepEqual(flags(await readLinked(http, VENUE, venue.id)), [false, true]);
      });
    });

    describe('stateprovince', () => {
      it('is the state for a US venue or one without a country', async () => {
        for (const country of ['United States', 'US', undefined]) {
          const venue = await createVenue(`In ${country}`, { state: 'IL', province: 'Sangamon', ...(country ? { country } : {}) });
          assert.equal(venue.stateprovince, 'IL', String(country));
        }
      });

      it('is the province for a venue outside the US', async () => {
        const venue = await createVenue('In Canada', { country: 'Canada', state: 'ON', province: 'Ontario' });
        assert.equal(venue.stateprovince, 'Ontario');
        assert.equal(venue.state, 'ON');
        const noProvince = await createVenue('In Germany', { country: 'Germany', state: 'Bavaria' });
        assert.equal('stateprovince' in noProvince, false, JSON.stringify(noProvince));
        const provinceOnly = await createVenue('Province only', { province: 'Quebec' });
        assert.equal(provinceOnly.stateprovince, 'Quebec');
      });

      it('is the value sent when one is sent', async () => {
        const venue = await createVenue('Explicit', { country: 'United States', state: 'IL', stateprovince: 'Land of Lincoln' });
        assert.equal(venue.stateprovince, 'Land of Lincoln');
        const empty = await createVenue('Explicit empty', { country: 'United States', state: 'IL', stateprovince: '' });
        assert.equal(empty.stateprovince, 'IL');
      });

      it('follows a new state on update and is kept by updates that do not touch the address', async () => {
        const venue = await createVenue('Mover', { country: 'United States', state: 'IL' });
        assert.equal((await patchVenue(venue.id, { phone: '555 0100' })).body.stateprovince, 'IL');
        assert.equal((await patchVenue(venue.id, { state: 'WI' })).body.stateprovince, 'WI');
        const explicit = await createVenue('Explicit', { stateprovince: 'Custom Region' });
        assert.equal((await patchVenue(explicit.id, { phone: '555 0100' })).body.stateprovince, 'Custom Region');
      });
    });

    describe('geo_lat and geo_lng', () => {
      it('appear only when both are set', async () => {
        const both = await createVenue('Both', { geo_lat: 48.8566, geo_lng: 2.3522 });
        assert.equal(both.geo_lat, 48.8566);
        assert.equal(both.geo_lng, 2.3522);
        const latOnly = await createVenue('Lat only', { geo_lat: 48.8566 });
        assert.equal('geo_lat' in latOnly, false);
        assert.equal('geo_lng' in latOnly, false);
        const completed = await patchVenue(latOnly.id, { geo_lng: 2.5 });
        assert.equal(completed.body.geo_lat, 48.8566);
        assert.equal(completed.body.geo_lng, 2.5);
      });

      it('accept the boundaries, zero and numeric strings', async () => {
        const edge = await createVenue('Edge', { geo_lat: -90, geo_lng: 180 });
        assert.deepEqual([edge.geo_lat, edge.geo_lng], [-90, 180]);
        const other = await createVenue('Other edge', { geo_lat: 90, geo_lng: -180 });
        assert.deepEqual([other.geo_lat, other.geo_lng], [90, -180]);
        const strings = await createVenue('Strings', { geo_lat: '12.5', geo_lng: '-7.25' });
        assert.deepEqual([strings.geo_lat, strings.geo_lng], [12.5, -7.25]);
        const form = await http().post(collectionPath(VENUE)).set('Authorization', users.editor.authorization).type('form').send('venue=Formed&geo_lat=1.5&geo_lng=-2');
        expectStatus(form, 201);
        assert.deepEqual([form.body.geo_lat, form.body.geo_lng], [1.5, -2]);
      });

      it('reject values outside their range or not numbers, on create and update', async () => {
        const venue = await createVenue('Placed', { geo_lat: 1, geo_lng: 2 });
        const bad: Array<[string, unknown]> = [
          ['geo_lat', 90.5],
          ['geo_lat', -91],
          ['geo_lng', 180.5],
          ['geo_lng', -181],
          ['geo_lat', 'north'],
          ['geo_lng', 'east'],
        ];
        for (const [field, value] of bad) {
          expectInvalidParam(await postVenue({ venue: `Bad ${field} ${value}`, geo_lat: 1, geo_lng: 2, [field]: value }), field);
          expectInvalidParam(await patchVenue(venue.id, { [field]: value }), field);
        }
        const read = await readLinked(http, VENUE, venue.id);
        assert.deepEqual([read.geo_lat, read.geo_lng], [1, 2]);
      });

      it('are cleared by null', async () => {
        const venue = await createVenue('Placed', { geo_lat: 1, geo_lng: 2 });
        const res = await patchVenue(venue.id, { geo_lat: null });
        expectStatus(res, 200);
        assert.equal('geo_lat' in res.body, false);
        assert.equal('geo_lng' in res.body, false);
      });
    });

    it('describes the venue as a schema.org Place with its address in json_ld', async () => {
      const venue = await createVenue('Peer Test Hall', {
        description: 'A <em>venue</em> created through the REST API.',
        address: '1 Main Street',
        city: 'Springfield',
        country: 'United States',
        state: 'IL',
        zip: '62701',
        phone: '+1 217 555 0100',
        website: 'https://venue.example.test',
        geo_lat: 39.5,
        geo_lng: -89.5,
      });
      const read = await readLinked(http, VENUE, venue.id);
      const ld = read.json_ld as Record<string, unknown>;
      assert.equal(ld['@type'], 'Place');
      assert.equal(ld.name, 'Peer Test Hall');
      assert.ok(String(ld.description).includes('created through the REST API'), String(ld.description));
      assert.ok(!String(ld.description).includes('<em>'), String(ld.description));
      assert.equal(ld.url, `${PUBLIC_URL}/venue/peer-test-hall/`);
      assert.deepEqual(ld.address, {
        '@type': 'PostalAddress',
        streetAddress: '1 Main Street',
        addressLocality: 'Springfield',
        addressRegion: 'IL',
        postalCode: '62701',
        addressCountry: 'United States',
      });
      assert.equal(ld.telephone, '+1 217 555 0100');
      assert.equal(ld.sameAs, 'https://venue.example.test');
      assert.deepEqual((ld.geo as Record<string, unknown>)['@type'], 'GeoCoordinates');
      const bare = (await readLinked(http, VENUE, (await createVenue('Bare')).id)).json_ld as Record<string, unknown>;
      assert.equal(bare['@type'], 'Place');
      assert.equal('geo' in bare, false);
      assert.equal('telephone' in bare, false);
      for (const value of Object.values(bare.address as Record<string, unknown>)) assert.notEqual(value, '');
    });

    it('ignores organizer fields sent to a venue', async () => {
      const venue = await createVenue('Not an organizer', { email: 'someone@example.test', organizer: 'Name' });
      assert.equal('email' in venue, false);
      assert.equal('organizer' in venue, false);
    });

    it('keeps show_map and show_map_link in a masked listing', async () => {
      const venue = await createVenue('Guarded', { password: 'pw', show_map: false, address: 'Hidden' });
      const res = await http().get(collectionPath(VENUE));
      const listed = (res.body.venues as LinkedRecord[]).find((item) => item.id === venue.id) as LinkedRecord;
      assert.deepEqual(flags(listed), [false, true]);
      assert.ok(!JSON.stringify(listed).includes('Hidden'));
    });
  });
});
