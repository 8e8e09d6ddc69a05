import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { testApp, NS, createUser } from '../../helpers/app.js';
import { expectError, expectStatus } from '../../helpers/assertions.js';

/** The bytes as they are: superagent would write a Buffer sent as JSON out as JSON (its typing says string). */
const asIs = (bytes: Buffer | string) => bytes as string;

/**
 * Bodies sent with `Content-Encoding` (docs/contract.md §2, docs/limits.md "Request bodies and
 * redirects"): a body that does not decompress is the caller's mistake, a 400 in the WordPress
 * envelope naming the body, never a 500; a well-compressed body is read as if sent plain.
 */
describe('compressed request bodies', () => {
  it('refuses a body that does not decompress as its Content-Encoding says with 400, and writes nothing', async () => {
    const { http } = await testApp();
    const admin = await createUser('administrator');
    const plain = JSON.stringify({ name: 'Never written' });
    const truncatedGzip = gzipSync(plain).subarray(0, 12);
    const cases: Array<[string, string, Buffer | string]> = [
      ['gzip', 'application/json', plain],
      ['deflate', 'application/json', plain],
      ['br', 'application/json', plain],
      ['gzip', 'application/json', truncatedGzip],
      ['gzip', 'application/x-www-form-urlencoded', 'name=Never+written'],
    ];
    for (const [encoding, type, body] of cases) {
      const res = await http()
        .post(`${NS}/categories`)
        .set('Authorization', admin.authorization)
        .set('Content-Type', type)
        .set('Content-Encoding', encoding)
        .serialize(asIs)
        .send(body);
      const data = expectError(res, 400, 'rest_invalid_param');
      assert.deepEqual(data.params, { body: 'The request body does not decompress as its Content-Encoding says.' }, `${encoding} ${type}`);
    }
    const listed = await http().get(`${NS}/categories?search=Never`);
    expectStatus(listed, 200);
    assert.deepEqual(listed.body.categories, []);
  });

  it('reads a well-compressed body as the plain one', async () => {
    const { http } = await testApp();
    const admin = await createUser('administrator');
    const res = await http()
      .post(`${NS}/categories`)
      .set('Authorization', admin.authorization)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize(asIs)
      .send(gzipSync(JSON.stringify({ name: 'Compressed' })));
    expectStatus(res, 201);
    assert.equal(res.body.name, 'Compressed');
  });
});
