/**
 * Fills an empty peer (a WordPress site running The Events Calendar, built by the recipe
 * docs/importing.md names) with a realistic calendar through its REST API, for
 * `import-site`'s fixtures and comparison (scripts/import-site/record-fixtures.ts, compare.ts).
 *
 *   PEER_URL=http://127.0.0.1:8082 PEER_AUTH=admin:APP_PASSWORD node --import tsx scripts/import-site/populate-peer.ts
 *
 * What it makes: three authors besides the administrator, categories with parents, tags, venues
 organizers, and events of every kind the importer must carry: all-day,
 * multi-day, several time zones, costs, featured/sticky/hidden, images by URL, drafts, pending,
 * private and future posts, past events.
 */
const base = (process.env.PEER_URL ?? 'http://127.0.0.1:8082').replace(/\/$/, '');
const auth = 'Basic ' + Buffer.from(process.env.PEER_AUTH ?? '').toString('base64');

async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/wp-json${path}`, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 400)}`);
  return JSON.parse(text);
}
const tec = (method: string, path: string, body?: unknown) => call(method, `/tribe/events/v1${path}`, body);

async function user(username: string, name: string, role: string): Promise<number> {
  const made = await call('POST', '/wp/v2/users', { username, name, email: `${username}@example.org`, password: `pw-${username}-${Date.now()}`, roles: [role], slug: username });
  return Number(made.id);
}

async function main(): Promise<void> {
  const maria = await user('maria', 'Maria Lopez', 'author');
  const jon = await user('jon', 'Jon Smith', 'editor');
  const kim = await user('kim', 'Kim Park', 'author');

  const cat = async (name: string, parent = 0, description = '') =>
    Number((await tec('POST', '/categories', { name, ...(description ? { description } : {}), ...(parent ? { parent } : {}) })).id);
  const music = await cat('Music', 0, 'Concerts and <strong>live</strong> music.');
  const jazz = await cat('Jazz', music, 'Smooth and free jazz.');
  const rock = await cat('Rock', music);
  await cat('Bebop', jazz, 'Fast tempos.');
  const workshops = await cat('Workshops', 0, 'Learn something new.');
  const kids = await cat('Kids', workshops);
  const talks = await cat('Talks & Lectures');
  const tag = async (name: string, description = '') => Number((await tec('POST', '/tags', { name, ...(description ? { description } : {}) })).id);
  const outdoor = await tag('outdoor', 'Under the sky.');
  const free = await tag('free');
  const family = await tag('family friendly');
  const late = await tag('Late Night');
  await tag('unused tag');

  const venue = async (body: Record<string, unknown>) => Number((await tec('POST', '/venues', body)).id);
  const hall = await venue({
    venue: 'City Concert Hall',
    address: '1 Main Street',
    city: 'Springfield',
    country: 'United States',
    state: 'IL',
    zip: '62701',
    phone: '+1 217 555 0100',
    website: 'https://hall.example.org',
    show_map: 'true',
    show_map_link: 'true',
    description: 'The <em>big</em> hall.',
  });
  const park = await venue({
    venue: 'Riverside Park',
    address: 'Riverside Drive',
    city: 'Berlin',
    country: 'Germany',
    province: 'Berlin',
    zip: '10115',
    show_map: 'true',
    show_map_link: 'false',
  });
  const cafe = await venue({
    venue: 'Café Lumière',
    address: '12 Rue de la Paix',
    city: 'Paris',
    country: 'France',
    province: 'Île-de-France',
    zip: '75002',
    phone: '01 23 45 67 89',
    show_map: 'false',
    show_map_link: 'false',
  });
  const online = await venue({ venue: 'Online', description: 'Streamed.' });
  await venue({ venue: 'Tokyo Library', city: 'Tokyo', country: 'Japan', status: 'draft', author: kim });
  // No coordinates: the free plugin answers geo_lat/geo_lng only with its paid geolocation add-on
  // (tribe_get_coordinates), so the importer's handling of them is tested with the synthetic source.

  const organizer = async (body: Record<string, unknown>) => Number((await tec('POST', '/organizers', body)).id);
  const arts = await organizer({
    organizer: 'Springfield Arts Council',
    email: 'info@arts.example.org',
    phone: '+1 217 555 0199',
    website: 'https://arts.example.org',
    description: 'Since 1970.',
  });
  const club = await organizer({ organizer: 'Jazz Club e.V.', email: 'club@jazz.example.de', website: 'https://jazz.example.de' });
  const anna = await organizer({ organizer: 'Anna Schmidt', phone: '030 1234567', author: maria });
  await organizer({ organizer: 'Unconfirmed Host', status: 'draft' });

  const image = (file: string) => `${base}/wp-includes/images/${file}`;
  const event = async (body: Record<string, unknown>) => Number((await tec('POST', '/events', body)).id);
  const year = new Date().getUTCFullYear();
  const at = (offsetDays: number, time: string) => {
    const day = new Date(Date.UTC(year, new Date().getUTCMonth(), new Date().getUTCDate() + offsetDays));
    return `${day.toISOString().slice(0, 10)} ${time}`;
  };
  await event({
    title: 'Spring Jazz Night',
    description: '<p>An evening of <strong>jazz</strong>.</p><ul><li>Trio</li><li>Quartet</li></ul>',
    excerpt: 'Jazz all night.',
    start_date: at(10, '19:00:00'),
    end_date: at(10, '23:00:00'),
    timezone: 'America/Chicago',
    venue: hall,
    organizer: [arts, club],
    categories: [jazz],
    tags: [late],
    cost: '15',
    website: 'https://tickets.example.org/jazz',
    featured: true,
    image: image('w-logo-blue.png'),
  });
  await event({
    title: 'Summer Festival',
    description: 'Three days of music.',
    start_date: at(30, '10:00:00'),
    end_date: at(32, '22:00:00'),
    timezone: 'Europe/Berlin',
    venue: park,
    organizer: [club],
    categories: [music, rock],
    tags: [outdoor, family],
    cost: '25 - 60',
    currency_symbol: '€',
    currency_position: 'suffix',
    sticky: true,
  });
  await event({
    title: 'Kids Pottery Workshop',
    start_date: at(5, '00:00:00'),
    end_date: at(5, '23:59:59'),
    all_day: true,
    venue: cafe,
    organizer: [anna],
    categories: [kids],
    tags: [family, free],
    cost: 'Free',
    author: maria,
  });
  await event({
    title: 'Long Weekend Retreat',
    start_date: at(40, '00:00:00'),
    end_date: at(42, '23:59:59'),
    all_day: true,
    timezone: 'Asia/Tokyo',
    categories: [workshops],
    cost: '0',
  });
  await event({ title: 'Secret Rehearsal', status: 'private', start_date: at(3, '18:00:00'), end_date: at(3, '20:00:00'), venue: hall, categories: [rock] });
  await event({ title: 'Draft: Poetry Slam', status: 'draft', start_date: at(12, '20:00:00'), end_date: at(12, '22:00:00'), categories: [talks], author: kim });
  await event({ title: 'Pending Lecture', status: 'pending', start_date: at(15, '14:00:00'), end_date: at(15, '16:00:00'), categories: [talks], author: kim, organizer: [anna] });
  await event({ title: 'Announced Later', status: 'future', date: `${year + 1}-01-15 09:00:00`, start_date: at(200, '18:00:00'), end_date: at(200, '21:00:00'), author: jon });
  await event({ title: 'Hidden Staff Party', start_date: at(20, '19:00:00'), end_date: at(20, '23:30:00'), hide_from_listings: true, venue: cafe, cost: '$5', author: jon });
  await event({
    title: 'Online Talk: Scaling Calendars',
    start_date: at(8, '16:00:00'),
    end_date: at(8, '17:00:00'),
    timezone: 'UTC+5',
    venue: online,
    categories: [talks],
    cost: '10, 20, 30',
    show_map: false,
    show_map_link: false,
    image: image('rss-2x.png'),
  });
  await event({
    title: 'Last Year’s Gala',
    start_date: at(-300, '19:00:00'),
    end_date: at(-300, '23:00:00'),
    venue: hall,
    organizer: [arts],
    categories: [music],
    cost: '100',
    featured: true,
    author: maria,
  });
  await event({ title: 'Yesterday Market', start_date: at(-1, '08:00:00'), end_date: at(-1, '13:00:00'), venue: park, tags: [outdoor, free], timezone: 'Europe/Berlin' });
  await event({
    title: 'Cross-midnight DJ Set',
    start_date: at(25, '22:00:00'),
    end_date: at(26, '04:00:00'),
    venue: cafe,
    categories: [music],
    tags: [late],
    timezone: 'Europe/Paris',
    cost: '12.50',
  });
  await event({ title: 'Bare Event', start_date: at(50, '09:00:00'), end_date: at(50, '10:00:00') });
  for (let i = 1; i <= 12; i++) {
    await event({
      title: `Weekly Bebop Session #${i}`,
      description: `<p>Session ${i}.</p>`,
      start_date: at(7 * i, '20:00:00'),
      end_date: at(7 * i, '22:30:00'),
      timezone: 'America/New_York',
      venue: i % 2 ? hall : cafe,
      organizer: [club],
      categories: [jazz],
      tags: i % 3 ? [late] : [late, free],
      cost: i % 4 ? '8' : '',
      author: i % 2 ? maria : jon,
    });
  }
  console.log('the peer holds a realistic calendar now');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
