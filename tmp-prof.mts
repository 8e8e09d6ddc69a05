import request from 'supertest';
import { createApp } from './src/app.js';
import { loadConfig } from './src/config.js';
import { createLogger } from './src/logger.js';
import { openDatabase } from './src/db/knex.js';
import { migrateLatest } from './src/db/migrate.js';
import { UserRepository } from './src/auth/users.js';
const { db } = openDatabase('sqlite::memory:');
await migrateLatest(db);
await new UserRepository(db).add('a', 'administrator', 'a-secret-0123456789abc');
const app = createApp({ config: { ...loadConfig({ LOG_LEVEL: 'error' }) }, db, logger: createLogger('error') });
const auth = `Basic ${Buffer.from('a:a-secret-0123456789abc').toString('base64')}`;
const times: number[] = []; const single: number[] = [];
for (let i = 0; i < 40; i++) {
  let t0 = performance.now();
  const res = await request(app).post('/wp-json/tribe/events/v1/events').set('Authorization', auth).send({ title: `S ${i}`, start_date: '2027-01-05 10:00:00', end_date: '2027-01-05 11:00:00', status: 'publish', timezone: 'Europe/Paris', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=105'] });
  times.push(performance.now() - t0);
  if (res.status !== 201) console.log(res.body);
  t0 = performance.now();
  await request(app).post('/wp-json/tribe/events/v1/events').set('Authorization', auth).send({ title: `E ${i}`, start_date: '2027-01-05 10:00:00', end_date: '2027-01-05 11:00:00', status: 'publish' });
  single.push(performance.now() - t0);
}
const med = (a: number[]) => a.slice(10).sort((x, y) => x - y)[Math.floor((a.length - 10) / 2)].toFixed(1);
console.log('series create p50', med(times), 'single create p50', med(single));
await db.destroy();
