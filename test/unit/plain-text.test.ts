import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';
import { sanitizeTextField } from '../../src/text/plain-text.js';

type Node = DefaultTreeAdapterMap['node'];

/** Element and comment nodes a browser builds from `html` (none means text alone). */
function markupOf(html: string): string[] {
  const found: string[] = [];
  const visit = (node: Node) => {
    if ('tagName' in node) found.push(node.tagName);
    else if (node.nodeName === '#comment') found.push('#comment');
    if ('childNodes' in node) for (const child of node.childNodes) visit(child as Node);
  };
  visit(parseFragment(html) as unknown as Node);
  return found;
}

/** Strings made of the characters that matter to HTML, so random inputs often form (broken) markup. */
const htmlish = fc
  .array(fc.constantFrom('<', '>', '/', '!', '?', '-', '"', "'", '=', '&', ';', '#', ' ', '\n', '\u0000', 'a', 'img', 'script', 'style', 'b', 'x', 'on', 'lt', '60'), {
    maxLength: 40,
  })
  .map((parts) => parts.join(''));

describe('plain text (WordPress sanitize_text_field)', () => {
  it('keeps WordPress\u2019s results on the usual inputs', () => {
    const cases: Array<[string, string]> = [
      ['Plain title', 'Plain title'],
      ['Rock & Roll', 'Rock & Roll'],
      ['a < b', 'a &lt; b'],
      ['a<b', 'a&lt;b'],
      ['1 < 2 > 0', '1 < 2 > 0'],
      ['x <b>bold</b> y', 'x bold y'],
      ['x <script>alert(1)</script> y', 'x y'],
      ['x <style>p{}</style> y', 'x y'],
      ['<script>unclosed', 'unclosed'],
      ['x <!-- note --> y', 'x y'],
      ['  spaced \r\n\t out  ', 'spaced out'],
      ['Talk <img src=x onerror=alert(document.domain)//', 'Talk &lt;img src=x onerror=alert(document.domain)//'],
      ['a < b & "c" \'d\'', 'a &lt; b &amp; &quot;c&quot; &#039;d&#039;'],
      ['a < b &amp; c', 'a &lt; b &amp; c'],
      ['&lt;b&gt; as written', '&lt;b&gt; as written'],
      ['<<b>img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)>'],
      ['<a title=">">y', 'y'],
      ['Caf\u00e9 \u{1F600}', 'Caf\u00e9 \u{1F600}'],
    ];
    for (const [input, expected] of cases) assert.equal(sanitizeTextField(input), expected, JSON.stringify(input));
  });

  it('never returns anything a browser would parse as an element or a comment, whatever the input', () => {
    fc.assert(
      fc.property(htmlish, (input) => {
        const output = sanitizeTextField(input);
        // In the page, between two elements, with a quote and a `>` after it to close what it left open.
        assert.deepEqual(markupOf(`<h1>${output}</h1><p>"'></p>`), ['h1', 'p'], `${JSON.stringify(input)} → ${JSON.stringify(output)}`);
        assert.ok(!/<[A-Za-z/!?]/.test(output), JSON.stringify(output));
      }),
      { numRuns: 3000, seed: 20261122 },
    );
  });

  it('changes text without `<` only in its whitespace', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60 }).filter((s) => !s.includes('<')),
        (input) => {
          assert.equal(sanitizeTextField(input), input.replace(/[\r\n\t ]+/g, ' ').trim());
        },
      ),
      { numRuns: 1000, seed: 20261122 },
    );
  });
});
