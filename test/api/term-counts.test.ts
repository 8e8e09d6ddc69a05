import assert from 'node:assert/strict';
import { testApp, NS, createUsers } from '../helpers/app.js';
import { expectStatus } from '../helpers/assertions.js';

describe('term counts', () => {
  it('count published events only, and follow publishing, retagging, trashing and deleting', async () => {
    const { http } = await testApp();
    const { editor } = await createUsers();
    const as = (req: ReturnType<ReturnType<typeof http>['get']>) => req.set('Authorization', editor.authorization);
    const count = async (id: number) => (await http().get(`${NS}/categories/${id}`)).body.count as number;
    const music = (await as(http().post(`${NS}/categories`)).send({ name: 'Music' })).body.id as number;
    const art = (await as(http().post(`${NS}/categories`)).send({ name: 'Art' })).body.id as number;
    const body = { title: 'Gig', start_date: '2030-05-01 10:00:00', end_date: '2030-05-01 11:00:00', categories: [music] };
    const draft = await as(http().post(`${NS}/events`)).send({ ...body, status: 'draft' });
    expectStatus(draft, 201);
    assert.equal(await count(music), 0, 'drafts do not count');
    expectStatus(await as(http().patch(`${NS}/events/${draft.body.id}`)).send({ status: 'publish' }), 200);
    assert.equal(await count(music), 1);
    const second = await as(http().post(`${NS}/events`)).send(body);
    assert.equal(await count(music), 2);
    expectStatus(await as(http().patch(`${NS}/events/${second.body.id}`)).send({ categories: [art] }), 200);
    assert.deepEqual([await count(music), await count(art)], [1, 1]);
    expectStatus(await as(http().delete(`${NS}/events/${draft.body.id}`)), 200);
    assert.equal(await count(music), 0, 'trashed events do not count');
    expectStatus(await as(http().delete(`${NS}/events/${second.body.id}?force=true`)), 200);
    assert.equal(await count(art), 0);
    const list = await http().get(`${NS}/categories`);
    assert.equal(list.body.total, 0, 'hide_empty hides terms no published event uses');
  });
});
