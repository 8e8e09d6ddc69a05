import assert from 'node:assert/strict';
import { likeEscape, sanitizeSlug, slugCandidate } from '../../src/text/slugs.js';

describe('slugs', () => {
  it('derives WordPress-style slugs', () => {
    assert.equal(sanitizeSlug('Peer Category'), 'peer-category');
    assert.equal(sanitizeSlug('  Café   Crème! '), 'cafe-creme');
    assert.equal(sanitizeSlug('<b>Rock</b> & Roll'), 'rock-roll');
    assert.equal(sanitizeSlug('snake_case--x'), 'snake_case-x');
    assert.equal(sanitizeSlug('Москва 2030'), 'москва-2030');
    assert.equal(sanitizeSlug('!!!'), '');
    assert.equal(sanitizeSlug('Rock &amp; Roll &#038; more'), 'rock-roll-more', 'character references are dropped, not spelled out');
    assert.equal(sanitizeSlug('-already-dashed-'), 'already-dashed');
  });

  it('numbers clashing slugs from 2 and keeps them within 200 characters', () => {
    assert.equal(slugCandidate('gig', 1), 'gig');
    assert.equal(slugCandidate('gig', 3), 'gig-3');
    assert.equal(slugCandidate('x'.repeat(200), 12).length, 200);
    assert.equal(sanitizeSlug('y'.repeat(300)).length, 200);
    assert.equal(sanitizeSlug(`${'a'.repeat(199)} bc`), 'a'.repeat(199), 'no hyphen left at the cut');
    assert.equal(slugCandidate('gig', 0), 'gig');
    assert.equal(slugCandidate('gig', 2), 'gig-2');
    assert.equal(slugCandidate('x'.repeat(200), 12), `${'x'.repeat(197)}-12`);
  });

  it('escapes LIKE wildcards', () => {
    assert.equal(likeEscape('50%_off!'), '50!%!_off!!');
  });
});
