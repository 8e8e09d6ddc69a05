import assert from 'node:assert/strict';
import { HtmlElementBudget, htmlStructureMessage, MAX_HTML_DEPTH, MAX_HTML_ELEMENTS, structureProblem, withinStructureBounds } from '../../src/text/html-structure.js';
import { autoParagraph, htmlToText, plainText, sanitizePageHtml, sanitizeUserHtml } from '../../src/text/html.js';

/** The deepest nesting of elements in HTML as the cleaners write it (every element closed). */
function depthOf(html: string): number {
  let depth = 0;
  let deepest = 0;
  for (const [, close, name] of html.matchAll(/<(\/?)([a-z0-9]+)[^>]*>/g)) {
    if (['br', 'img', 'hr'].includes(name!)) continue;
    depth += close ? -1 : 1;
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

describe('the structural bounds of HTML (text/html-structure.ts)', () => {
  it('are 100 levels and 5,000 elements', () => {
    assert.equal(MAX_HTML_DEPTH, 100);
    assert.equal(MAX_HTML_ELEMENTS, 5_000);
  });

  it('allow nesting 100 deep and refuse 101, naming the field', () => {
    assert.equal(structureProblem('<b>'.repeat(100)), undefined);
    assert.equal(structureProblem('<b>'.repeat(101)), 'depth');
    assert.equal(htmlStructureMessage('excerpt', '<b>'.repeat(101)), 'excerpt nests HTML elements more than 100 deep.');
    assert.equal(htmlStructureMessage('excerpt', '<b>'.repeat(100)), undefined);
  });

  it('allow 5,000 start tags and refuse 5,001, naming the field', () => {
    assert.equal(structureProblem('<br>'.repeat(5_000)), undefined);
    assert.equal(structureProblem('<br>'.repeat(5_001)), 'elements');
    assert.equal(htmlStructureMessage('description', '<p>a</p>'.repeat(5_001)), 'description has more than 5000 HTML elements.');
  });

  it('count depth as the cleaners parse: closed, void and implicitly closed elements do not nest', () => {
    assert.equal(structureProblem('<b>a</b>'.repeat(500)), undefined);
    assert.equal(structureProblem(`<p>${'a<br>b<img src="x">'.repeat(500)}</p>`), undefined);
    // End tags HTML lets authors leave out: list items, paragraphs, table cells and rows.
    assert.equal(structureProblem(`<ul>${'<li>item'.repeat(500)}</ul>`), undefined);
    assert.equal(structureProblem('<p>one<p>two'.repeat(300)), undefined);
    assert.equal(structureProblem(`<table>${'<tr><td>a<td>b'.repeat(300)}</table>`), undefined);
    assert.equal(structureProblem(`<dl>${'<dt>a<dd>b'.repeat(300)}</dl>`), undefined);
    // An end tag closes the elements opened after its own.
    assert.equal(structureProblem('<div><span><i>x</div>'.repeat(300)), undefined);
    assert.equal(structureProblem('<div><div><span>x</div>'.repeat(101)), 'depth');
  });

  it('see no tags inside <script>, <style>, <title>, <textarea> and <xmp>, as the cleaners do', () => {
    // The `</b>` inside the script is text: every `<b>` stays open.
    assert.equal(structureProblem('<b><script></b></script>'.repeat(101)), 'depth');
    for (const tag of ['script', 'style', 'title', 'textarea', 'xmp']) {
      assert.equal(structureProblem(`<${tag}>${'<b>'.repeat(200)}</${tag}>`), undefined, tag);
    }
  });

  it('count every < followed by a letter as a start tag, wherever it is', () => {
    assert.equal(structureProblem(`<!--${'<b>'.repeat(5_001)}-->`), 'elements');
    assert.equal(structureProblem('a < b, 1<2, <3 and </b>'.repeat(5_001)), undefined);
  });

  it("bound a request's HTML fields together: a budget of 5,000 start tags, taken field by field", () => {
    const budget = new HtmlElementBudget();
    assert.equal(budget.take('<p>a</p>'.repeat(3_000)), true);
    assert.equal(budget.take('<p>a</p>'.repeat(2_001)), false);
    assert.equal(budget.remaining, 2_000);
    assert.equal(budget.take('plain text, a < b'), true);
    assert.equal(budget.take('<br>'.repeat(2_000)), true);
    assert.equal(budget.remaining, 0);
    assert.equal(budget.take('<br>'), false);
  });

  describe('withinStructureBounds (for rows stored before the bounds)', () => {
    it('returns HTML within the bounds as it is', () => {
      for (const html of ['', 'plain', '<p>a <b>b</b></p>', '<b>'.repeat(100), '<br>'.repeat(5_000)]) assert.equal(withinStructureBounds(html), html);
    });

    it('leaves out start tags deeper than 100, keeping their text', () => {
      assert.equal(withinStructureBounds(`${'<b>'.repeat(102)}x`), `${'<b>'.repeat(100)}x`);
      assert.equal(withinStructureBounds(`${'<i>'.repeat(100)}<b class="deep">x</b>y`), `${'<i>'.repeat(100)}x</b>y`);
      // Offsets count UTF-16 code units, also after line breaks and astral characters.
      assert.equal(withinStructureBounds(`😀\r\n${'<i>'.repeat(101)}😀`), `😀\r\n${'<i>'.repeat(100)}😀`);
    });

    it('makes everything after the first 5,000 start tags text without markup', () => {
      const head = '<br>'.repeat(5_000);
      assert.equal(withinStructureBounds(`${head}<b>x</b> <a href="y">z</a> <i`), `${head}x z `);
      // Dropping a tag cannot join a `<` and a letter into a new one.
      assert.equal(withinStructureBounds(`${head}<<b>b>`), `${head}&lt;b>`);
      assert.equal(withinStructureBounds(`${'<i>'.repeat(100)}<<b>b>`), `${'<i>'.repeat(100)}&lt;b>`);
    });

    it('keeps every cleaner within the bounds, whatever the stored HTML', () => {
      const nested = `<p>Start</p>${'<b>'.repeat(20_000)}end`;
      // A page shows the description after autop (which adds a paragraph around the rest).
      for (const out of [sanitizeUserHtml(nested), sanitizePageHtml(nested), sanitizePageHtml(autoParagraph(nested))]) {
        assert.equal(depthOf(out), MAX_HTML_DEPTH);
        assert.match(out, /end/);
      }
      assert.equal(plainText(nested), 'Startend');
      assert.equal(htmlToText(nested), 'Start\n\nend');
    });
  });
});

describe('htmlToText and unclosed markup', () => {
  it('takes an unclosed tag, quote, comment or declaration to the end of the text, as HTML does', () => {
    assert.equal(htmlToText('a <b c'), 'a');
    assert.equal(htmlToText('a <b title="x>y'), 'a');
    assert.equal(htmlToText("a <b title='x"), 'a');
    assert.equal(htmlToText('a <!x'), 'a');
    assert.equal(htmlToText('a <script "x'), 'a');
    assert.equal(htmlToText('a <a <a <a '), 'a');
    assert.equal(htmlToText('a < b <3 </ c'), 'a < b <3 </ c');
  });
});
