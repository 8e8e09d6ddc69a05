import assert from 'node:assert/strict';
import { parse, parseFragment, type DefaultTreeAdapterMap } from 'parse5';
import type { TestUser } from '../helpers/app.js';
import { EVENT_DATES, NS, send, world, type World } from './fixtures.js';
import { TEXT_LIMITS } from '../../src/text/limits.js';
import { openTestDatabase } from '../helpers/database.js';

/**
 * HTML sanitising (docs/contract.md §3, §5 and docs/api-guide.md "Categories and tags"): `description` and
 * `excerpt` from users who are not editors or administrators (no `unfiltered_html`) are cleaned on
 * write — no scripts, no event handlers, no `javascript:` URLs; editors' and administrators' HTML is
 * kept. The answers are parsed as a browser would (parse5 implements the WHATWG HTML parser), so a
 * payload that only becomes dangerous after parsing (mutation XSS) is caught too.
 */

/** Known payloads: the classic vectors, encoded and obfuscated variants and parser-confusion tricks. */
const PAYLOADS = [
  '<script>alert("xss")</script>',
  '<SCRIPT SRC=https://evil.example/xss.js></SCRIPT>',
  '<img src=x onerror="alert(1)">',
  '<img src="x" ONERROR=alert(1) alt="x">',
  '<a href="javascript:alert(1)">link</a>',
  '<a href="JaVaScRiPt:alert(1)">link</a>',
  '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">link</a>',
  '<a href="jav&#x09;ascript:alert(1)">link</a>',
  '<a href=" javascript:alert(1)">link</a>',
  '<a href="vbscript:msgbox(1)">link</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">link</a>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<div style="background:url(javascript:alert(1))">styled</div>',
  '<p style="width: expression(alert(1))">old IE</p>',
  '<style>body{background:url("javascript:alert(1)")}</style>',
  '<iframe src="https://evil.example/"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<object data="https://evil.example/x.swf"></object>',
  '<embed src="https://evil.example/x.swf">',
  '<marquee onstart=alert(1)>x</marquee>',
  '<input autofocus onfocus=alert(1)>',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  '<button formaction="javascript:alert(1)">go</button>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
  '<link rel="stylesheet" href="https://evil.example/x.css">',
  '<<script>script>alert(1)//<</script>/script>',
  '<img """><script>alert(1)</script>">',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<details open ontoggle=alert(1)>',
  '<video><source onerror="alert(1)"></video>',
  '<a href="#" onclick="alert(1)" onmouseover=alert(1)>hover</a>',
  '<!--<img src="--><img src=x onerror=alert(1)//">',
];

/** Inert as sent, dangerous when a filter removes the inner tag and joins the rest: they test the filter. */
const FILTER_CONFUSERS = ['<scr<script>ipt>alert(1)</scr</script>ipt>', '<a href="java<b>script:alert(1)">link</a>', '<img src=x o<b>nerror=alert(1)>'];

const ALL_PAYLOADS = [...PAYLOADS, ...FILTER_CONFUSERS];

/**
 * Payloads for plain-text fields: tags without their closing `>` (closed by whatever markup follows
 * the value on the page), nested and malformed tags, and entity-encoded markup, which a cleaner must
 * not decode into live markup. A pattern that strips only `<…>` lets the first kinds through.
 */
const TEXT_PAYLOADS = [
  'Talk <img src=x onerror=alert(document.domain)//',
  '<img src=x onerror=alert(1)',
  '<svg/onload=alert(1)',
  '<svg onload=alert(1)\n',
  '<img src="x" onerror="alert(1)',
  '<iframe src=javascript:alert(1)',
  '<<img src=x onerror=alert(1)>img src=x onerror=alert(1)>',
  '<<script>script>alert(1)<</script>/script>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<img src=x o<b>nerror=alert(1)>',
  '<a href="x>y" onclick=alert(1)>click',
  '<img src="x>" onerror="alert(1)"',
  '<!--><img src=x onerror=alert(1)>-->',
  '<title><img src=x onerror=alert(1)></title>',
  '<textarea><img src=x onerror=alert(1)></textarea>',
  '<noscript><img src=x onerror=alert(1)></noscript>',
  '<xmp><img src=x onerror=alert(1)></xmp>',
  '<b\u0000><img src=x onerror=alert(1)>',
  '<\u0000img src=x onerror=alert(1)>',
  '&lt;img src=x onerror=alert(1)&gt;',
  '&#60;img src=x onerror=alert(1)&#62;',
  '&#x3c;svg onload=alert(1)&#x3e;',
  '&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;',
  '%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E',
  '<img src=x onerror=alert(1)>',
];

/** Elements that run code, load active content or change the page around them. */
const ACTIVE_ELEMENTS = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'svg',
  'math',
  'link',
  'meta',
  'base',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'body',
  'html',
  'head',
  'template',
  'noscript',
  'xmp',
  'plaintext',
  'details',
  'video',
  'audio',
  'source',
]);
/** Attributes holding URLs a browser follows or runs. */
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster', 'background', 'srcset', 'cite', 'lowsrc', 'dynsrc']);

type Node = DefaultTreeAdapterMap['node'];

/** What a browser would find dangerous in this HTML fragment: active elements, handlers, styles, script URLs. */
function dangers(html: string): string[] {
  const found: string[] = [];
  const visit = (node: Node) => {
    if ('tagName' in node) {
      if (ACTIVE_ELEMENTS.has(node.tagName)) found.push(`<${node.tagName}>`);
      for (const { name, value } of node.attrs) {
        if (/^on/i.test(name)) found.push(`${node.tagName}[${name}]`);
        if (name === 'style' || name === 'srcdoc') found.push(`${node.tagName}[${name}]`);
        // Browsers drop tabs and line breaks inside URLs and ignore leading spaces and control characters.
        const url = value
          .replace(/[\t\n\r]/g, '')
          // eslint-disable-next-line no-control-regex -- browsers drop leading control characters from URLs; so must this check.
          .replace(/^[\u0000-\u0020]+/, '')
          .toLowerCase();
        if (URL_ATTRIBUTES.has(name) && /^(javascript|vbscript|data):/.test(url)) found.push(`${node.tagName}[${name}=${value}]`);
      }
      if (node.tagName === 'template') visit((node as unknown as { content: Node }).content);
    }
    if ('childNodes' in node) for (const child of node.childNodes) visit(child as Node);
  };
  visit(parseFragment(html) as unknown as Node);
  return found;
}

/**
 * A plain-text value as a client renders it: inside the page's markup (`<h1>{title}</h1>` and more
 * after it), so a tag left open by the value is closed by what follows. Plain text must parse to
 * text alone: no element, no comment.
 */
function markupIn(text: string): string[] {
  const page = `<h1>${text}</h1><p class="after">"x"</p>`;
  const nodes: string[] = [];
  const visit = (node: Node) => {
    if ('tagName' in node) nodes.push(node.tagName);
    else if (node.nodeName === '#comment') nodes.push('#comment');
    if ('childNodes' in node) for (const child of node.childNodes) visit(child as Node);
  };
  visit(parseFragment(page) as unknown as Node);
  const found = nodes.join(',') === 'h1,p' ? [] : [`markup (${nodes.join(',')})`];
  return [...found, ...dangers(page)];
}

/** Every string in a record (nested objects and lists, `json_ld` included), with its path. */
function stringsOf(value: unknown, at = ''): Array<[string, string]> {
  if (typeof value === 'string') return [[at, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringsOf(item, `${at}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => stringsOf(item, at ? `${at}.${key}` : key));
  return [];
}

/** HTML fields, checked with `dangers` (formatting markup is allowed there); everything else is plain text. */
const HTML_FIELDS = /(^|\.)(description|excerpt)$/;

interface Target {
  label: string;
  collection: string;
  /** A create body with `html` in its HTML fields. */
  body: (html: string, n: number) => Record<string, unknown>;
  /** The HTML fields of the answer. */
  fields: string[];
}

const TARGETS: Target[] = [
  { label: 'event', collection: 'events', body: (html, n) => ({ title: `Event ${n}`, ...EVENT_DATES, description: html, excerpt: html }), fields: ['description', 'excerpt'] },
  { label: 'venue', collection: 'venues', body: (html, n) => ({ venue: `Venue ${n}`, description: html }), fields: ['description'] },
  { label: 'organizer', collection: 'organizers', body: (html, n) => ({ organizer: `Organizer ${n}`, description: html }), fields: ['description'] },
  { label: 'category', collection: 'categories', body: (html, n) => ({ name: `Category ${n}`, description: html }), fields: ['description'] },
];

/** Roles without `unfiltered_html` that may write each target (docs/contract.md §5, plugin §4.2). */
const FILTERED_WRITERS: Record<string, Array<'contributor' | 'author'>> = {
  events: ['contributor', 'author'],
  venues: ['contributor', 'author'],
  organizers: ['contributor', 'author'],
  categories: ['author'],
};

let counter = 0;

/**
 * ALL_PAYLOADS joined by `separator`, in runs of at most 200 characters: cleaning may make a payload
 * up to four times longer (`<` becomes `&lt;`), and an excerpt holds 1,000 characters once cleaned
 * (docs/limits.md).
 */
function payloadBatches(separator: string): string[] {
  const batches: string[] = [];
  let batch = '';
  for (const payload of ALL_PAYLOADS) {
    if (batch !== '' && batch.length + separator.length + payload.length > 200) {
      batches.push(batch);
      batch = '';
    }
    batch = batch === '' ? payload : `${batch}${separator}${payload}`;
  }
  if (batch !== '') batches.push(batch);
  return batches;
}

/** Creates through the API as `as` and returns the answer and the record as read back by the administrator. */
async function write(w: World, as: TestUser, target: Target, html: string): Promise<Array<[string, string]>> {
  counter += 1;
  const res = await send(w.http, 'post', `${NS}/${target.collection}`, as, target.body(html, counter));
  assert.equal(res.status, 201, `${target.label} by ${as.role}: ${res.text}`);
  const stored = await send(w.http, 'get', `${NS}/${target.collection}/${res.body.id}`, w.admin);
  return target.fields.flatMap(
    (field) =>
      [
        [`answer ${field}`, String(res.body[field])],
        [`stored ${field}`, String(stored.body[field])],
      ] as Array<[string, string]>,
  );
}

describe('HTML sanitising of descriptions and excerpts', function () {
  let w: World;
  beforeEach(async () => {
    w = await world();
  });

  it('the checker itself finds every payload dangerous (so the tests below can fail)', () => {
    for (const payload of PAYLOADS) assert.notDeepEqual(dangers(payload), [], payload);
    assert.deepEqual(dangers('<p><strong>Bold</strong> <a href="https://example.test/">link</a> <img src="https://example.test/a.png" alt="a"></p>'), []);
  });

  for (const target of TARGETS) {
    it(`${target.label}: every payload from ${FILTERED_WRITERS[target.collection].join(' and ')} is cleaned on create and on update`, async () => {
      const problems: string[] = [];
      for (const role of FILTERED_WRITERS[target.collection]) {
        const as = w.users[role] as TestUser;
        // The payloads together, in records as large as the shortest HTML field takes (an excerpt:
        // 1,000 characters once cleaned; each payload is also checked on its own below for events).
        for (const batch of payloadBatches(' ')) {
          for (const [where, html] of await write(w, as, target, batch.replace(/ /g, '\n'))) {
            for (const danger of dangers(html)) problems.push(`${role} ${where}: ${danger}`);
          }
          // An update (PATCH of the writer's own record) is cleaned the same way.
          counter += 1;
          const created = await send(w.http, 'post', `${NS}/${target.collection}`, as, target.body('plain', counter));
          const patch = Object.fromEntries(target.fields.map((field) => [field, batch]));
          const updated = await send(w.http, 'patch', `${NS}/${target.collection}/${created.body.id}`, as, patch);
          assert.equal(updated.status, 200, updated.text);
          for (const field of target.fields) for (const danger of dangers(String(updated.body[field]))) problems.push(`${role} update ${field}: ${danger}`);
        }
      }
      assert.deepEqual(problems, []);
    });
  }

  // Titles are plain text (docs/contract.md §3 returns them as stored); whatever is stored must be harmless too.
  it('event: each payload on its own in the title, description and excerpt, from a contributor, sent as JSON and as a form', async () => {
    const problems: string[] = [];
    const contributor = w.users.contributor as TestUser;
    for (const [i, payload] of ALL_PAYLOADS.entries()) {
      const form = i % 2 === 1;
      const body = { title: `Event ${i} ${payload}`, ...EVENT_DATES, description: payload, excerpt: payload };
      let req = w.http().post(`${NS}/events`).set('Authorization', contributor.authorization);
      req = form ? req.type('form').send(new URLSearchParams(body).toString()) : req.send(body);
      const res = await req;
      assert.equal(res.status, 201, res.text);
      for (const field of ['title', 'description', 'excerpt']) for (const danger of dangers(String(res.body[field]))) problems.push(`${payload} → ${field}: ${danger}`);
    }
    assert.deepEqual(problems, []);
  });

  it('venues and organizers created inside an event by a contributor are cleaned too', async () => {
    const contributor = w.users.contributor as TestUser;
    const html = ALL_PAYLOADS.join('\n');
    const res = await send(w.http, 'post', `${NS}/events`, contributor, {
      title: 'Nested',
      ...EVENT_DATES,
      venue: { venue: 'Nested venue', description: html },
      organizer: [{ organizer: 'Nested organizer', description: html }],
    });
    assert.equal(res.status, 201, res.text);
    const venue = await send(w.http, 'get', `${NS}/venues/${res.body.venue.id}`, w.admin);
    const organizer = await send(w.http, 'get', `${NS}/organizers/${res.body.organizer[0].id}`, w.admin);
    assert.deepEqual(dangers(String(venue.body.description)), []);
    assert.deepEqual(dangers(String(organizer.body.description)), []);
  });

  it('keeps harmless HTML from those roles (formatting, http(s) links and images; terms: WordPress\u2019s inline tags only)', async () => {
    const safe = '<strong>Bold</strong> <em>it</em> <a href="https://example.test/page">link</a> <img src="https://example.test/a.png" alt="pic">';
    for (const target of TARGETS) {
      const as = w.users[FILTERED_WRITERS[target.collection][0]] as TestUser;
      const kept = ['<strong>Bold</strong>', '<em>it</em>', 'href="https://example.test/page"'];
      if (target.collection !== 'categories') kept.push('src="https://example.test/a.png"');
      for (const [where, html] of await write(w, as, target, safe)) {
        for (const part of kept) assert.ok(html.includes(part), `${target.label} ${where} lost ${part}: ${html}`);
      }
    }
  });

  it('keeps editors\u2019 and administrators\u2019 HTML in posts as sent (they hold unfiltered_html)', async () => {
    const html = '<script>track("x")</script><iframe src="https://video.example/embed/1"></iframe>';
    for (const role of ['editor', 'administrator'] as const) {
      for (const target of TARGETS.filter((t) => t.collection !== 'categories')) {
        for (const [where, text] of await write(w, w.users[role] as TestUser, target, html)) {
          assert.ok(
            text.includes('<script>track("x")</script>') && text.includes('<iframe src="https://video.example/embed/1"></iframe>'),
            `${role} ${target.label} ${where}: ${text}`,
          );
        }
      }
    }
  });

  // As the plugin answers (WordPress runs every term description through kses with its inline tags,
  // and kses keeps the text of the elements it removes): docs/contract.md §3.
  it('cleans term descriptions for administrators too, keeping the text of removed elements', async () => {
    const html = '<script>alert(1)</script><b>bold</b><p class="x">Para</p><img src="https://example.test/a.png"> 1 < 2';
    const expected = 'alert(1)<b>bold</b>Para 1 &lt; 2';
    for (const collection of ['tags', 'categories']) {
      const created = await send(w.http, 'post', `${NS}/${collection}`, w.admin, { name: `Kses ${collection}`, description: html });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.description, expected);
    }
  });

  it('keeps the text of a removed element in an author\u2019s description, as kses does', async () => {
    const res = await send(w.http, 'post', `${NS}/venues`, w.users.author as TestUser, { venue: 'Kses venue', description: '<script>alert(1)</script><b>bold</b>' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.description, '<p>alert(1)<b>bold</b></p>');
  });

  // Plain-text fields are cleaned for every caller (they are never HTML), so the weakest writer of
  // each resource sends the payloads; tags, which only editors manage, are written by an editor.
  describe('plain-text fields: unclosed, nested, malformed and entity-encoded markup', () => {
    const PLAIN = {
      events: { role: 'author', fields: ['title', 'cost'], body: (n: number) => ({ title: `Event ${n}`, ...EVENT_DATES }) },
      venues: {
        role: 'contributor',
        fields: ['venue', 'address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'],
        body: (n: number) => ({ venue: `Venue ${n}` }),
      },
      organizers: { role: 'contributor', fields: ['organizer', 'phone'], body: (n: number) => ({ organizer: `Organizer ${n}` }) },
      categories: { role: 'author', fields: ['name'], body: (n: number) => ({ name: `Category ${n}` }) },
      tags: { role: 'editor', fields: ['name'], body: (n: number) => ({ name: `Tag ${n}` }) },
    } as const;

    /** Problems in a record as read back: markup in any plain-text string, dangers in HTML ones. */
    function problemsIn(record: unknown, label: string): string[] {
      return stringsOf(record).flatMap(([path, text]) =>
        (HTML_FIELDS.test(path) ? dangers(text) : markupIn(text)).map((found) => `${label} ${path}=${JSON.stringify(text)}: ${found}`),
      );
    }

    for (const [collection, target] of Object.entries(PLAIN)) {
      it(`${collection}: every payload in every plain-text field (${target.fields.join(', ')}), on create and on update, as JSON and as a form`, async () => {
        const as = w.users[target.role] as TestUser;
        const problems: string[] = [];
        for (const [i, payload] of TEXT_PAYLOADS.entries()) {
          counter += 1;
          const form = i % 2 === 1;
          // The payload after the record's own name, so names stay distinct and non-empty.
          const body: Record<string, string> = Object.fromEntries(Object.entries(target.body(counter)).map(([k, v]) => [k, String(v)]));
          for (const field of target.fields) body[field] = `${body[field] ?? ''} ${payload}`.trim();
          let req = w.http().post(`${NS}/${collection}`).set('Authorization', as.authorization);
          req = form ? req.type('form').send(new URLSearchParams(body).toString()) : req.send(body);
          const created = await req;
          assert.equal(created.status, 201, `${collection} ${JSON.stringify(payload)}: ${created.text}`);
          problems.push(...problemsIn(created.body, `create ${JSON.stringify(payload)}`));
          const read = await send(w.http, 'get', `${NS}/${collection}/${created.body.id}`, w.admin);
          problems.push(...problemsIn(read.body, `read ${JSON.stringify(payload)}`));
          const patch = Object.fromEntries(target.fields.map((field) => [field, `x ${counter} ${payload} y`]));
          const updated = await send(w.http, 'patch', `${NS}/${collection}/${created.body.id}`, as, patch);
          assert.equal(updated.status, 200, `${collection} update ${JSON.stringify(payload)}: ${updated.text}`);
          problems.push(...problemsIn(updated.body, `update ${JSON.stringify(payload)}`));
        }
        const list = await send(w.http, 'get', `${NS}/${collection}?per_page=50&status=any&hide_empty=0`, w.admin);
        problems.push(...problemsIn(list.body, 'list'));
        assert.deepEqual(problems, []);
      });
    }

    it('terms created by name through an event, and venues and organizers created inside one', async () => {
      const author = w.users.author as TestUser;
      const problems: string[] = [];
      for (const payload of TEXT_PAYLOADS) {
        counter += 1;
        const res = await send(w.http, 'post', `${NS}/events`, author, {
          title: `Nested ${counter}`,
          ...EVENT_DATES,
          categories: [`Cat ${counter} ${payload}`],
          venue: { venue: `Venue ${counter} ${payload}`, address: payload, city: payload },
          organizer: [{ organizer: `Org ${counter} ${payload}`, phone: payload }],
        });
        assert.equal(res.status, 201, `${JSON.stringify(payload)}: ${res.text}`);
        problems.push(...problemsIn(res.body, JSON.stringify(payload)));
        const single = await send(w.http, 'get', `${NS}/events/${res.body.id}`, w.admin);
        problems.push(...problemsIn(single.body, `single ${JSON.stringify(payload)}`));
      }
      assert.deepEqual(problems, []);
    });

    it('the image extension taken from a URL is plain too', async () => {
      const author = w.users.author as TestUser;
      const res = await send(w.http, 'post', `${NS}/venues`, author, { venue: 'Pictured', image: 'https://img.example/a.%3Csvg%20onload=alert(1)%3E' });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(problemsIn(res.body, 'image'), []);
    });

    // Venue and organizer websites are plain text first (tags stripped), then checked as URLs.
    it('URL fields refuse markup characters (quotes, angle brackets, backticks) or keep none of them', async () => {
      const author = w.users.author as TestUser;
      for (const url of ['https://x.example/?<svg/onload=alert(1)>', 'https://x.example/"onmouseover="alert(1)', 'https://x.example/`x`', 'https://x.example/a>b']) {
        for (const [collection, body] of [
          ['events', { title: 'E', ...EVENT_DATES }],
          ['venues', { venue: 'V' }],
          ['organizers', { organizer: 'O' }],
        ] as const) {
          for (const field of ['website', 'image']) {
            const res = await send(w.http, 'post', `${NS}/${collection}`, author, { ...body, [field]: url });
            const stored = field === 'image' ? res.body.image?.url : res.body.website;
            assert.ok(res.status === 400 || (res.status === 201 && !/[<>"`]/.test(String(stored))), `${collection} ${field} ${url}: ${res.status} ${res.text}`);
          }
        }
      }
    });

    it('the checker finds every payload as a regex stripper leaves it (so the tests above can fail)', () => {
      const regexStripped = (text: string) =>
        text
          .replace(/<[^>]*>/g, '')
          .replace(/[\r\n\t ]+/g, ' ')
          .trim();
      const live = TEXT_PAYLOADS.filter((payload) => markupIn(regexStripped(payload)).length > 0);
      for (const payload of ['Talk <img src=x onerror=alert(document.domain)//', '<svg/onload=alert(1)', '<img src="x" onerror="alert(1)'])
        assert.ok(live.includes(payload), payload);
      assert.deepEqual(markupIn('Rock &amp; Roll, a &lt; b, 1 < 2 > 0'), []);
    });
  });

  it('keeps plain text as WordPress sanitize_text_field does: tags stripped, whitespace collapsed, a lone < encoded', async () => {
    const author = w.users.author as TestUser;
    const cases: Array<[string, string]> = [
      ['Rock & Roll', 'Rock & Roll'],
      ['a < b', 'a &lt; b'],
      ['1 < 2 > 0', '1 < 2 > 0'],
      ['Caf\u00e9 <b>Noir</b>', 'Caf\u00e9 Noir'],
      ['  Two\n\tlines  ', 'Two lines'],
      ['x <script>alert(1)</script> y', 'x y'],
      ['Talk <img src=x onerror=alert(document.domain)//', 'Talk &lt;img src=x onerror=alert(document.domain)//'],
      ['&lt;b&gt; stays &amp; as written', '&lt;b&gt; stays &amp; as written'],
      ['Tom\'s "quoted" <3', 'Tom\'s "quoted" &lt;3'],
    ];
    for (const [sent, kept] of cases) {
      counter += 1;
      const res = await send(w.http, 'post', `${NS}/venues`, author, { venue: `${counter} ${sent}`, city: sent });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.venue, `${counter} ${kept}`.trim(), JSON.stringify(sent));
      assert.equal(res.body.city, kept, JSON.stringify(sent));
    }
  });

  it('strips tags from venue and organizer text fields, as WordPress sanitize_text_field does (docs/plugin-behaviour.md §6.1)', async () => {
    const author = w.users.author as TestUser;
    const tagged = '<script>alert(1)</script><b onmouseover=alert(1)>x</b>';
    const venue = await send(w.http, 'post', `${NS}/venues`, author, {
      venue: `V ${tagged}`,
      address: tagged,
      city: tagged,
      state: tagged,
      province: tagged,
      zip: tagged,
      country: tagged,
      phone: tagged,
    });
    const organizer = await send(w.http, 'post', `${NS}/organizers`, author, { organizer: `O ${tagged}`, phone: tagged });
    for (const res of [venue, organizer]) {
      assert.equal(res.status, 201, res.text);
      for (const [key, value] of Object.entries(res.body)) {
        if (typeof value === 'string' && key !== 'description') assert.ok(!/[<>]/.test(value), `${key}: ${value}`);
      }
    }
  });

  it('refuses javascript: and other non-http(s) URLs in website and image fields', async () => {
    const author = w.users.author as TestUser;
    for (const url of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x']) {
      for (const [collection, body] of [
        ['events', { title: 'E', ...EVENT_DATES }],
        ['venues', { venue: 'V' }],
        ['organizers', { organizer: 'O' }],
      ] as const) {
        const website = await send(w.http, 'post', `${NS}/${collection}`, author, { ...body, website: url });
        assert.equal(website.status, 400, `${collection} website ${url}: ${website.status} ${website.text}`);
        const image = await send(w.http, 'post', `${NS}/${collection}`, author, { ...body, image: url });
        assert.equal(image.status, 400, `${collection} image ${url}: ${image.status} ${image.text}`);
      }
    }
  });

  // The public pages (docs/contract.md §13) put stored values into a whole HTML document: titles and
  // names as text, descriptions as sanitised HTML, everything again in attributes (OpenGraph, labels)
  // and in the JSON-LD block. Editors' descriptions are stored as sent, so the pages see every payload.
  describe('public pages', () => {
    /** The frame's own head elements, and what each may be. */
    function headProblem(element: DefaultTreeAdapterMap['element'], seen: Map<string, number>): string | undefined {
      const value = (name: string) => element.attrs.find((a) => a.name === name)?.value;
      seen.set(element.tagName, (seen.get(element.tagName) ?? 0) + 1);
      switch (element.tagName) {
        case 'title':
          return undefined;
        case 'meta':
          return value('http-equiv') === undefined ? undefined : '<meta http-equiv>';
        case 'link':
          return ['canonical', 'alternate', 'https://api.w.org/', 'icon'].includes(value('rel') ?? '') ? undefined : `<link rel=${value('rel')}>`;
        case 'style':
          return seen.get('style')! > 1 ? 'a second <style>' : undefined;
        case 'script':
          return value('type') === 'application/ld+json' && value('src') === undefined && seen.get('script')! === 1 ? undefined : '<script> that is not the one JSON-LD block';
        default:
          return `<${element.tagName}> in <head>`;
      }
    }

    /** What a browser would find dangerous in a whole page: anything but the frame in `<head>`, active content in `<body>`, a heading with markup. */
    function pageDangers(html: string): string[] {
      const found: string[] = [];
      const seen = new Map<string, number>();
      const document = parse(html) as unknown as Node;
      const visit = (node: Node, inHead: boolean) => {
        if ('tagName' in node) {
          if (inHead && node.tagName !== 'head') {
            const problem = headProblem(node, seen);
            if (problem) found.push(problem);
          }
          if (!inHead && ACTIVE_ELEMENTS.has(node.tagName) && !['html', 'head', 'body'].includes(node.tagName)) found.push(`<${node.tagName}> in <body>`);
          if (node.tagName === 'script') {
            try {
              JSON.parse(node.childNodes.map((child) => (child as { value?: string }).value ?? '').join(''));
            } catch {
              found.push('a <script> whose content is not JSON');
            }
          }
          if (node.tagName === 'h1' && node.childNodes.some((child) => 'tagName' in child)) found.push('markup inside <h1>');
          for (const { name, value } of node.attrs) {
            if (/^on/i.test(name) || name === 'style' || name === 'srcdoc') found.push(`${node.tagName}[${name}]`);
            const url = value
              .replace(/[\t\n\r]/g, '')
              .trim()
              .toLowerCase();
            // The frame's empty icon (`data:,`), which spares the browser a request for /favicon.ico.
            const frameIcon = inHead && node.tagName === 'link' && value === 'data:,';
            if (URL_ATTRIBUTES.has(name) && /^(javascript|vbscript|data):/.test(url) && !frameIcon) found.push(`${node.tagName}[${name}=${value}]`);
          }
        }
        if ('childNodes' in node) for (const child of node.childNodes) visit(child as Node, inHead || ('tagName' in node && node.tagName === 'head'));
      };
      visit(document, false);
      return found;
    }

    it('the checker finds a payload placed in a page unescaped (so the test below can fail)', () => {
      const frame = (inner: string) => `<!DOCTYPE html><html lang="en"><head><title>x</title></head><body><main><h1>${inner}</h1></main></body></html>`;
      assert.deepEqual(pageDangers(frame('Rock &amp; Roll')), []);
      for (const payload of ['<img src=x onerror=alert(1)>', '<script>alert(1)</script>', '<svg onload=alert(1)>', 'x</h1><iframe src="javascript:alert(1)">'])
        assert.notDeepEqual(pageDangers(frame(payload)), [], payload);
      assert.notDeepEqual(pageDangers('<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0"></head><body></body></html>'), []);
    });

    it('every payload in titles, names, addresses, descriptions, excerpts and terms: every page stays inert', async () => {
      const editor = w.users.editor as TestUser;
      const problems: string[] = [];
      const category = await send(w.http, 'post', `${NS}/categories`, editor, { name: 'Hostile category', description: ALL_PAYLOADS.join('\n') });
      const tag = await send(w.http, 'post', `${NS}/tags`, editor, { name: 'Hostile tag', description: ALL_PAYLOADS.join('\n') });
      assert.equal(category.status, 201, category.text);
      assert.equal(tag.status, 201, tag.text);
      const pages = new Set([category.body.url as string, tag.body.url as string, 'http://api.test/events/']);
      for (const [i, payload] of [...ALL_PAYLOADS, ...TEXT_PAYLOADS].entries()) {
        const res = await send(w.http, 'post', `${NS}/events`, editor, {
          title: `Event ${i} ${payload}`,
          ...EVENT_DATES,
          description: payload,
          excerpt: payload,
          cost: `${i} ${payload}`,
          categories: [category.body.id, `Cat ${i} ${payload}`],
          tags: [tag.body.id],
          venue: { venue: `Venue ${i} ${payload}`, address: payload, city: payload, description: payload },
          organizer: [{ organizer: `Organizer ${i} ${payload}`, phone: payload, description: payload }],
        });
        assert.equal(res.status, 201, `${JSON.stringify(payload)}: ${res.text}`);
        pages.add(res.body.url).add(res.body.venue.url).add(res.body.organizer[0].url);
        for (const term of res.body.categories as Array<{ slug: string }>) pages.add(`http://api.test/events/category/${term.slug}/`);
      }
      for (const url of pages) {
        const path = url.replace('http://api.test', '');
        const res = await w.http().get(path);
        assert.equal(res.status, 200, `${path}: ${res.status}`);
        for (const danger of pageDangers(res.text)) problems.push(`${path}: ${danger}`);
      }
      assert.ok(pages.size > 3 * ALL_PAYLOADS.length, 'every page was read');
      assert.deepEqual(problems, []);
    });
  });
});

/**
 * Size attacks through cleaning (docs/limits.md "Text fields and reply sizes"): a text within a
 * field's input limit that cleaning makes longer than the field holds (each `<` becomes the four
 * characters of `&lt;`) is refused, 400 naming the field, and stores nothing; one that still fits
 * once cleaned is stored, as inert as any other.
 */
describe('size attacks: text that cleaning lengthens past its limit', function () {
  this.timeout(60_000);
  let w: World;
  beforeEach(async () => {
    w = await world();
  });

  interface SizedField {
    collection: string;
    field: string;
    limit: number;
    as: 'contributor' | 'author' | 'editor';
    base: Record<string, unknown>;
  }
  const name = (collection: string) =>
    ({ events: { title: 'Sized', ...EVENT_DATES }, venues: { venue: 'Sized' }, organizers: { organizer: 'Sized' } })[collection] ?? { name: 'Sized' };
  const FIELDS: SizedField[] = [
    ...['events', 'venues', 'organizers'].flatMap((collection) => [
      { collection, field: collection === 'events' ? 'title' : collection.slice(0, -1), limit: TEXT_LIMITS.title },
      { collection, field: 'description', limit: TEXT_LIMITS.description },
    ]),
    { collection: 'events', field: 'excerpt', limit: TEXT_LIMITS.excerpt },
    { collection: 'events', field: 'cost', limit: TEXT_LIMITS.cost },
    ...['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'].map((field) => ({ collection: 'venues', field, limit: TEXT_LIMITS.field })),
    { collection: 'organizers', field: 'phone', limit: TEXT_LIMITS.field },
    { collection: 'categories', field: 'name', limit: TEXT_LIMITS.termName },
    { collection: 'categories', field: 'description', limit: TEXT_LIMITS.termDescription },
    // Only editors and administrators may create tags, and their HTML is not cleaned: a tag's name is plain text for them too.
    { collection: 'tags', field: 'name', limit: TEXT_LIMITS.termName },
  ].map((f) => ({ ...f, as: ({ categories: 'author', tags: 'editor' } as const)[f.collection as 'categories' | 'tags'] ?? ('contributor' as const), base: name(f.collection) }));

  const rows = async () => {
    const { db } = await openTestDatabase();
    return JSON.stringify(await Promise.all(['posts', 'terms', 'venues', 'organizers'].map((table) => db(table).count({ n: '*' }))));
  };

  it('every text field of every resource: past its limit once cleaned is 400 naming it, within it is stored and inert', async () => {
    const problems: string[] = [];
    for (const { collection, field, limit, as, base } of FIELDS) {
      const user = w.users[as] as TestUser;
      const before = await rows();
      const grown = await send(w.http, 'post', `${NS}/${collection}`, user, { ...base, [field]: '<'.repeat(Math.floor(limit / 2)) });
      if (grown.status !== 400 || grown.body.code !== 'rest_invalid_param' || !(field in (grown.body.data?.params ?? {})))
        problems.push(`${collection}.${field} grown past ${limit}: ${grown.status} ${grown.text.slice(0, 200)}`);
      if ((await rows()) !== before) problems.push(`${collection}.${field}: a refused write stored something`);
      const fits = await send(w.http, 'post', `${NS}/${collection}`, user, { ...base, [field]: `${'<'.repeat(Math.floor(limit / 4) - 1)}x` });
      if (fits.status !== 201) problems.push(`${collection}.${field} within ${limit} once cleaned: ${fits.status} ${fits.text.slice(0, 200)}`);
      else for (const danger of dangers(String(fits.body[field]))) problems.push(`${collection}.${field}: ${danger}`);
    }
    assert.deepEqual(problems, []);
  });
});
