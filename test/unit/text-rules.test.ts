import assert from 'node:assert/strict';
import { isEmail, isHttpUrl, isTruthy, sanitizeTextField } from '../../src/text/fields.js';
import { autoParagraph, htmlToText, plainText, sanitizeUserHtml } from '../../src/text/html.js';

/** The pure text rules of src/text/ that the writes and the feeds rely on, one by one. */
describe('text rules', () => {
  describe('isHttpUrl (a website field)', () => {
    it('accepts absolute http(s) URLs up to 2048 characters', () => {
      assert.ok(isHttpUrl('http://example.test/'));
      assert.ok(isHttpUrl('https://example.test/a?b=c#d'));
      const long = `https://example.test/${'a'.repeat(2048 - 'https://example.test/'.length)}`;
      assert.equal(long.length, 2048);
      assert.ok(isHttpUrl(long));
      assert.ok(!isHttpUrl(`${long}a`), '2049 characters');
    });

    it('refuses other schemes, relative URLs, URLs without a host, and characters that mean something in HTML', () => {
      for (const value of ['ftp://example.test/', 'javascript:alert(1)', 'mailto:a@example.test', '/relative', 'example.test', 'http://', 'file:///etc/passwd']) {
        assert.ok(!isHttpUrl(value), value);
      }
      for (const value of ['https://example.test/a b', 'https://example.test/<x>', 'https://example.test/"', 'https://example.test/`']) assert.ok(!isHttpUrl(value), value);
    });
  });

  describe('isEmail', () => {
    it('accepts one @ and a dotted domain, up to 254 characters', () => {
      assert.ok(isEmail('someone@example.test'));
      assert.ok(isEmail('a.b+c@mail.example-domain.test'));
      assert.ok(isEmail('a@b.c'), 'one-character labels');
      const long = `${'a'.repeat(254 - '@example.test'.length)}@example.test`;
      assert.equal(long.length, 254);
      assert.ok(isEmail(long));
      assert.ok(!isEmail(`a${long}`), '255 characters');
    });

    it('refuses addresses without a dotted domain, with spaces or markup, or with text around them', () => {
      for (const value of [
        'someone',
        'someone@',
        '@example.test',
        'someone@localhost',
        'a b@example.test',
        'a@b@example.test',
        '<a>@example.test',
        'x someone@example.test',
        'someone@example.test x',
        'someone@example.',
        'someone@-example.test',
        'someone@example-.test',
        'someone@example.test-',
      ]) {
        assert.ok(!isEmail(value), value);
      }
    });
  });

  describe('isTruthy (tribe_is_truthy)', () => {
    it('reads the true boolean words, y, and non-zero numbers as true', () => {
      for (const value of [true, 'true', ' Yes ', 'on', '1', 'y', ' Y ', 1, -2, 0.5]) assert.equal(isTruthy(value), true, JSON.stringify(value));
      for (const value of [false, 'false', 'no', '0', 0, '', 'n', 'maybe', 'yy', null, undefined, {}]) assert.equal(isTruthy(value), false, JSON.stringify(value));
    });
  });

  describe('sanitizeTextField', () => {
    it('escapes an unclosed < run and keeps the character references in it', () => {
      assert.equal(sanitizeTextField('a < b &#123; &#x1F600; &amp; & c'), 'a &lt; b &#123; &#x1F600; &amp; &amp; c');
      assert.equal(sanitizeTextField('Talk < \'quoted\' "both"'), 'Talk &lt; &#039;quoted&#039; &quot;both&quot;');
    });

    it('drops a closed script with its content, whatever other end tags it contains', () => {
      assert.equal(sanitizeTextField('a<script>x</b>y</script>b'), 'ab');
      assert.equal(sanitizeTextField('a<style>p{}</script>q</style>b'), 'ab');
    });
  });

  describe('sanitizeUserHtml (HTML of users without unfiltered_html)', () => {
    it('keeps images with their attributes, edits, spans and the global attributes', () => {
      const img = '<img src="https://example.test/a.png" srcset="https://example.test/a.png 1x" alt="A" title="T" width="10" height="20" loading="lazy" />';
      assert.equal(sanitizeUserHtml(img), img);
      assert.equal(sanitizeUserHtml('<del>old</del><ins>new</ins><span>s</span>'), '<del>old</del><ins>new</ins><span>s</span>');
      assert.equal(sanitizeUserHtml('<p class="c" id="i" title="t" lang="fr" dir="rtl" style="x" onclick="y">p</p>'), '<p class="c" id="i" title="t" lang="fr" dir="rtl">p</p>');
    });

    it('keeps http, https, mailto and tel links, and no other scheme', () => {
      for (const href of ['http://example.test/', 'https://example.test/', 'mailto:a@example.test', 'tel:+15550100']) {
        assert.equal(sanitizeUserHtml(`<a href="${href}">x</a>`), `<a href="${href}">x</a>`, href);
      }
      for (const href of ['javascript:alert(1)', 'data:text/html,x', 'ftp://example.test/']) assert.equal(sanitizeUserHtml(`<a href="${href}">x</a>`), '<a>x</a>', href);
      // As kses: the element goes, its text stays (escaped).
      assert.equal(sanitizeUserHtml('a<script>alert(1)</script>b'), 'aalert(1)b');
      assert.equal(sanitizeUserHtml('<script>if (1 < 2) go()</script>'), 'if (1 &lt; 2) go()');
    });
  });

  describe('autoParagraph and plainText', () => {
    it('wraps text in paragraphs, trimmed, and leaves blank text empty', () => {
      assert.equal(autoParagraph('Text\nmore\n\nNext\n'), '<p>Text<br />\nmore</p>\n<p>Next</p>');
      assert.equal(autoParagraph(''), '');
      assert.equal(autoParagraph(' \n '), '');
    });

    it('drops every tag and collapses whitespace', () => {
      assert.equal(plainText('<p>One  <b>two</b></p>\n\n<p>three</p> '), 'One two three');
      assert.equal(plainText('<img src="x" alt="y">z'), 'z');
    });
  });

  describe('htmlToText', () => {
    it('puts a space where a comment or a script was, and normalises every kind of blank', () => {
      assert.equal(htmlToText('a<!-- c -->b'), 'a b');
      assert.equal(htmlToText('a<script>x</script>b'), 'a b');
      assert.equal(htmlToText('a\u000bb\fc\td\re'), 'a b c d e');
      assert.equal(htmlToText('a \n b'), 'a\nb');
      assert.equal(htmlToText('a\n b'), 'a\nb');
      assert.equal(htmlToText('a \nb'), 'a\nb');
    });

    it('decodes references to code points, replacing those to nothing with U+FFFD', () => {
      assert.equal(htmlToText('&#x10FFFF;'), '\u{10FFFF}');
      assert.equal(htmlToText('&#x110000;'), '\ufffd');
      assert.equal(htmlToText('&#xDFFF;&#xD7FF;&#xE000;'), '\ufffd\ud7ff\ue000');
      assert.equal(htmlToText('&eacute;&eacute; &nosuchname;'), 'éé &nosuchname;');
    });
  });
});
