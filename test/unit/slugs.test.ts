import assert from 'node:assert/strict';
import { cutSlug, likeEscape, removeAccents, sanitizeSlug, slugCandidate, slugFamilyPrefix, slugLookups, utf8UriEncode } from '../../src/text/slugs.js';

/**
 * Slugs as WordPress makes them. The expected values are WordPress's own test cases (its phpunit
 * tests of remove_accents, sanitize_title_with_dashes and utf8_uri_encode), in our words.
 */

const ENCODED_EVENT = '%e3%82%a4%e3%83%99%e3%83%b3%e3%83%88'; // イベント

describe('slugs', () => {
  describe('removeAccents (WordPress, default locale)', () => {
    it('replaces the Latin-1 Supplement letters by its table', () => {
      assert.equal(removeAccents('ªºÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ'), 'aoAAAAAAAECEEEEIIIIDNOOOOOOUUUUYTHsaaaaaaaeceeeeiiiidnoooooouuuuythy');
    });

    it('replaces the Latin Extended-A letters by its table', () => {
      assert.equal(
        removeAccents('ĀāĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħĨĩĪīĬĭĮįİıĲĳĴĵĶķĸĹĺĻļĽľĿŀŁłŃńŅņŇňŉŊŋŌōŎŏŐőŒœŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŦŧŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžſ'),
        'AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIiIJijJjKkkLlLlLlLlLlNnNnNnnNnOoOoOoOEoeRrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzs',
      );
      // Every letter of both blocks becomes ASCII (× and ÷ are no letters).
      for (let code = 0xc0; code <= 0x17f; code++) {
        const character = String.fromCodePoint(code);
        if (character === '×' || character === '÷') continue;
        assert.match(removeAccents(character), /^[A-Za-z]+$/, `U+${code.toString(16)} ${character}`);
      }
    });

    it('replaces its Latin Extended-B letters, the euro and pound signs, Vietnamese and Hanyu Pinyin vowels', () => {
      assert.equal(removeAccents('ȘșȚț'), 'SsTt');
      assert.equal(removeAccents('€'), 'E');
      assert.equal(removeAccents('£'), '');
      assert.equal(removeAccents('ƠơƯư'), 'OoUu');
      assert.equal(removeAccents('ẦầẰằỀềỒồỜờỪừỲỳ'), 'AaAaEeOoOoUuYy');
      assert.equal(removeAccents('ẢảẨẩẲẳẺẻỂểỈỉỎỏỔổỞởỦủỬửỶỷ'), 'AaAaAaEeEeIiOoOoOoUuUuYy');
      assert.equal(removeAccents('ẪẫẴẵẼẽỄễỖỗỠỡỮữỸỹ'), 'AaAaEeEeOoOoUuYy');
      assert.equal(removeAccents('ẤấẮắẾếỐốỚớỨứ'), 'AaAaEeOoOoUu');
      assert.equal(removeAccents('ẠạẬậẶặẸẹỆệỊịỌọỘộỢợỤụỰựỴỵ'), 'AaAaAaEeEeIiOoOoOoUuUuYy');
      assert.equal(removeAccents('āēīōūǖĀĒĪŌŪǕ'), 'aeiouuAEIOUU');
      assert.equal(removeAccents('áéíóúǘÁÉÍÓÚǗ'), 'aeiouuAEIOUU');
      assert.equal(removeAccents('ǎěǐǒǔǚǍĚǏǑǓǙ'), 'aeiouuAEIOUU');
      assert.equal(removeAccents('àèìòùǜÀÈÌÒÙǛ'), 'aeiouuAEIOUU');
      assert.equal(removeAccents('aɑeiouüAEIOUÜ'), 'aaeiouuAEIOUU');
    });

    it('keeps the default-locale forms (no German, Danish, Catalan or Serbian extras) and composes first', () => {
      assert.equal(removeAccents('ÄÖÜäöüß'), 'AOUaous');
      assert.equal(removeAccents('ÆØÅæøå'), 'AEOAaeoa');
      assert.equal(removeAccents('al·lallaŀla'), 'al·lallalla');
      assert.equal(removeAccents('Đđ'), 'Dd');
      assert.equal(removeAccents('e\u0301'), 'e', 'a decomposed é is composed, then replaced');
    });

    it('leaves Greek, Cyrillic, Japanese and Arabic as they are, marks included', () => {
      for (const text of ['Ελληνικά Αθήνα', 'Москва Ёлка й', 'イベント がぎ', 'مرحبا بالعالم']) assert.equal(removeAccents(text), text);
    });
  });

  describe('sanitizeSlug (sanitize_title, saving)', () => {
    it('transliterates Latin as WordPress does', () => {
      assert.equal(sanitizeSlug('Smørrebrød'), 'smorrebrod');
      assert.equal(sanitizeSlug('Ærø Łódź'), 'aero-lodz');
      assert.equal(sanitizeSlug('  Café   Crème! '), 'cafe-creme');
      // WordPress's default table: `ß` is `s` (`ss` only on a German-locale site).
      assert.equal(sanitizeSlug('Straße'), 'strase');
    });

    it('keeps other scripts whole, lower-cased and percent-encoded', () => {
      assert.equal(sanitizeSlug('イベント'), ENCODED_EVENT);
      assert.equal(sanitizeSlug('イヘ\u3099ント'), ENCODED_EVENT, 'a decomposed ベ is the same word');
      assert.notEqual(sanitizeSlug('イヘント'), ENCODED_EVENT);
      assert.equal(sanitizeSlug('Москва 2030'), '%d0%bc%d0%be%d1%81%d0%ba%d0%b2%d0%b0-2030');
      assert.equal(sanitizeSlug('Ελληνικά'), '%ce%b5%ce%bb%ce%bb%ce%b7%ce%bd%ce%b9%ce%ba%ce%ac', 'lower-cased, the tonos kept');
      assert.equal(sanitizeSlug('مرحبا'), '%d9%85%d8%b1%d8%ad%d8%a8%d8%a7');
      // A slug sent already encoded (in either case) is the same slug.
      assert.equal(sanitizeSlug(ENCODED_EVENT.toUpperCase()), ENCODED_EVENT);
      assert.equal(sanitizeSlug(ENCODED_EVENT), ENCODED_EVENT);
    });

    it('follows sanitize_title_with_dashes', () => {
      assert.equal(sanitizeSlug('Captain <strong>Awesome</strong>'), 'captain-awesome');
      assert.equal(sanitizeSlug('fran%c3%a7%ois'), 'fran%c3%a7ois', 'a % that starts no octet is dropped');
      assert.equal(sanitizeSlug('ABC'), 'abc');
      assert.equal(sanitizeSlug('a          t'), 'a-t');
      assert.equal(sanitizeSlug('a    \n\n\nt'), 'a-t');
      assert.equal(sanitizeSlug('a----t----t----'), 'a-t-t');
      assert.equal(sanitizeSlug('penn & teller bull'), 'penn-teller-bull');
      assert.equal(sanitizeSlug('No &nbsp; Entities &ndash; Here &amp;'), 'no-entities-here');
      assert.equal(sanitizeSlug('One &#123; Two;'), 'one-two');
      assert.equal(sanitizeSlug('One Two™;'), 'one-two');
      assert.equal(sanitizeSlug('One &&amp; Two;'), 'one-two');
      assert.equal(sanitizeSlug('One&Two'), 'onetwo');
      assert.equal(sanitizeSlug("don't\u00a0break the space"), 'dont-break-the-space');
      assert.equal(sanitizeSlug("don't&nbsp;break&#160;the&nbsp;space"), 'dont-break-the-space');
      assert.equal(sanitizeSlug('Do – the Dash'), 'do-the-dash');
      assert.equal(sanitizeSlug('Do the — Dash'), 'do-the-dash');
      assert.equal(sanitizeSlug('Do &ndash; the &#8211; Dash'), 'do-the-dash');
      assert.equal(sanitizeSlug('Do &mdash; the &#8212; Dash'), 'do-the-dash');
      assert.equal(sanitizeSlug('Just ¡a Slug'), 'just-a-slug');
      assert.equal(sanitizeSlug('Just a Slug¿'), 'just-a-slug');
      assert.equal(sanitizeSlug('‹Just a Slug›'), 'just-a-slug');
      assert.equal(sanitizeSlug('«Just a Slug»'), 'just-a-slug');
      for (const quoted of ['Hey its “Curly Joe”', 'Hey its ‘Curly Joe’', 'Hey its „Curly Joe“', 'Hey its ‚Curly Joe‛', 'Hey its „Curly Joe‟']) {
        assert.equal(sanitizeSlug(quoted), 'hey-its-curly-joe', quoted);
      }
      assert.equal(sanitizeSlug('Fancy Title • Amazing'), 'fancy-title-amazing');
      for (const text of ['Just © a Slug', '® Just a Slug', 'Just a ° Slug', 'Just ™ a Slug']) assert.equal(sanitizeSlug(text), 'just-a-slug', text);
      for (const text of ['songs by Lennon/McCartney', 'songs by Lennon//McCartney', 'songs by Lennon/-McCartney', '//songs by Lennon/McCartney']) {
        assert.equal(sanitizeSlug(text), 'songs-by-lennon-mccartney', text);
      }
      assert.equal(sanitizeSlug('6×7 is 42'), '6x7-is-42');
      assert.equal(sanitizeSlug('ááa´aˊ'), 'aaaa');
      assert.equal(sanitizeSlug('a\u0304a\u0301a\u030ca\u0300'), 'aaaa', 'standalone combining marks');
      assert.equal(sanitizeSlug('snake_case--x'), 'snake_case-x');
      assert.equal(sanitizeSlug('v1.2 release'), 'v1-2-release');
      assert.equal(sanitizeSlug('!!!'), '');
      assert.equal(sanitizeSlug('-already-dashed-'), 'already-dashed');
      assert.equal(sanitizeSlug('lone \ud800 surrogate'), 'lone-surrogate');
    });

    it('cuts at 200 characters of the encoded form, between characters', () => {
      assert.equal(sanitizeSlug('y'.repeat(300)).length, 200);
      assert.equal(sanitizeSlug(`${'a'.repeat(199)} bc`), 'a'.repeat(199), 'no hyphen left at the cut');
      // イ is 9 encoded characters: 22 of them (198) fit, a 23rd would not.
      assert.equal(sanitizeSlug('イ'.repeat(40)), '%e3%82%a4'.repeat(22));
      assert.equal(sanitizeSlug(`a${'イ'.repeat(40)}`), `a${'%e3%82%a4'.repeat(22)}`);
      assert.equal(sanitizeSlug(`ab${'イ'.repeat(40)}`), `ab${'%e3%82%a4'.repeat(22)}`, 'exactly 200');
      assert.equal(sanitizeSlug(`abc${'イ'.repeat(40)}`), `abc${'%e3%82%a4'.repeat(21)}`);
      assert.equal(sanitizeSlug('😀'.repeat(60)), '%f0%9f%98%80'.repeat(16));
    });
  });

  it('utf8UriEncode encodes non-ASCII only, and never passes or splits at its length', () => {
    assert.equal(utf8UriEncode('a イ'), 'a %e3%82%a4');
    for (const text of ['Ελληνικά Αθήνα', 'Москва Ёлка', 'イベント がぎ', 'مرحبا بالعالم', '😀x😀']) {
      for (let max = 0; max <= 40; max++) {
        const encoded = utf8UriEncode(text, max);
        assert.ok(encoded.length <= max);
        assert.ok(utf8UriEncode(text).startsWith(encoded));
        assert.equal(encodeURIComponent(decodeURIComponent(encoded)).toLowerCase(), encoded.replace(/ /g, '%20'), 'whole characters');
      }
    }
  });

  it('sanitizes a slug being looked up (query) without transliterating, and tries it as given first', () => {
    assert.equal(sanitizeSlug('Smørrebrød', 'query'), 'sm%c3%b8rrebr%c3%b8d');
    assert.equal(sanitizeSlug('イベント', 'query'), ENCODED_EVENT);
    assert.deepEqual(slugLookups('イベント', 'query'), ['イベント', ENCODED_EVENT]);
    assert.deepEqual(slugLookups(ENCODED_EVENT, 'query'), [ENCODED_EVENT]);
    assert.deepEqual(slugLookups('smørrebrød', 'query'), ['smørrebrød', 'sm%c3%b8rrebr%c3%b8d']);
    // A term URL carries the octets: WordPress looks up the segment as the URL has it.
    assert.deepEqual(slugLookups('smørrebrød', 'save'), ['smørrebrød', 'smorrebrod', 'sm%c3%b8rrebr%c3%b8d']);
    assert.deepEqual(slugLookups('!!!', 'save'), ['!!!']);
    // A slug that kept `%xx` octets of its title arrives decoded from the URL: its encoded form finds it.
    assert.deepEqual(slugLookups('a-<b>-c', 'query'), ['a-<b>-c', 'a-c', 'a-%3cb%3e-c']);
  });

  it('numbers clashing slugs from 2 and keeps them within 200 characters, cut between characters', () => {
    assert.equal(slugCandidate('gig', 0), 'gig');
    assert.equal(slugCandidate('gig', 1), 'gig');
    assert.equal(slugCandidate('gig', 2), 'gig-2');
    assert.equal(slugCandidate('gig', 3), 'gig-3');
    assert.equal(slugCandidate('x'.repeat(200), 12), `${'x'.repeat(197)}-12`);
    const japanese = '%e3%82%a4'.repeat(22);
    assert.equal(slugCandidate(japanese, 12), `${'%e3%82%a4'.repeat(21)}-12`);
    assert.equal(slugCandidate(`${'x'.repeat(196)}-yyy`, 12), `${'x'.repeat(196)}-12`, 'no hyphen before the suffix');
    assert.equal(cutSlug(japanese, 10), '%e3%82%a4');
    assert.equal(cutSlug(japanese, 8), '');
    // The family prefix starts every candidate (what a unique-slug write looks up).
    for (const base of [japanese, 'x'.repeat(200), `${'a'.repeat(185)}-${'%e3%82%a4'.repeat(2)}`]) {
      for (const attempt of [2, 9, 10, 12345, 1234567890]) assert.ok(slugCandidate(base, attempt).startsWith(slugFamilyPrefix(base)), `${base} ${attempt}`);
    }
  });

  it('escapes LIKE wildcards', () => {
    assert.equal(likeEscape('50%_off!'), '50!%!_off!!');
  });
});
