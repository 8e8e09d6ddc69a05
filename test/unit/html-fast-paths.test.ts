import assert from 'node:assert/strict';
import fc from 'fast-check';
import sanitizeHtml from 'sanitize-html';
import { autop } from '@wordpress/autop';
import { autoParagraph, plainText } from '../../src/text/html.js';

/**
 * `autoParagraph` and `plainText` (src/text/html.ts) answer one line of plain text themselves, without
 * autop or sanitize-html: their results must be the libraries' to the byte, whatever the text.
 */

/** The libraries' own results, as text/html.ts computed them before its shortcuts. */
const autopResult = (text: string) => autop(text).trim();
const sanitizeResult = (text: string) => sanitizeHtml(text, { allowedTags: [], allowedAttributes: {} }).replace(/\s+/g, ' ').trim();

/** Every kind of space and line break JavaScript knows, characters HTML gives meaning to, and words autop looks for. */
const PIECES = [
  ' ',
  ' ',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\v',
  '\f',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u0000',
  '\ud800',
  'a',
  'é',
  '😀',
  '<',
  '>',
  '&',
  '"',
  "'",
  '=',
  '/',
  '[',
  ']',
  ';',
  '#',
  '!',
  '-',
  '$1',
  '$&',
  'amp;',
  '&amp;',
  '&#60;',
  '&lt;',
  'p',
  'br',
  'pre',
  '<p>',
  '</p>',
  '<br>',
  '<pre>',
  'div',
  '<!-- wpnl -->',
  'wpnl',
  'Rock & Roll',
];

/** Random text, most of it without the characters that make either function fall back to its library. */
const text = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((parts) => parts.join('')),
  fc.array(fc.constantFrom(...PIECES.filter((piece) => !/[<>&\n\r]/.test(piece))), { maxLength: 30 }).map((parts) => parts.join('')),
  fc.string({ maxLength: 60 }),
);

describe('autoParagraph and plainText: their shortcuts give what the libraries give', () => {
  it('autoParagraph(text) is autop(text) trimmed, for any text', () => {
    fc.assert(
      fc.property(text, (input) => assert.equal(autoParagraph(input), autopResult(input))),
      { numRuns: 5000 },
    );
  });

  it('plainText(text) is sanitize-html without tags, spaces collapsed, for any text', () => {
    fc.assert(
      fc.property(text, (input) => assert.equal(plainText(input), sanitizeResult(input))),
      { numRuns: 5000 },
    );
  });

  it('keeps the usual results', () => {
    assert.equal(autoParagraph('Doors open at 7.'), '<p>Doors open at 7.</p>');
    assert.equal(autoParagraph('  spaced  '), '<p>  spaced  </p>');
    assert.equal(autoParagraph(' \t\u00a0'), '');
    assert.equal(autoParagraph('one\ntwo'), '<p>one<br />\ntwo</p>');
    assert.equal(plainText('  Doors \t open\u00a0at 7. '), 'Doors open at 7.');
    assert.equal(plainText('Rock & Roll'), 'Rock &amp; Roll');
    assert.equal(plainText('1 > 0'), '1 &gt; 0');
  });
});
