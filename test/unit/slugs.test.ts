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
  });

  it('numbers clashing slugs from 2 and keeps them within 200 characters', () => {
    assert.equal(slugCandidate('gig', 1), 'gig');
    assert.equal(slugCandidate('gig', 3), 'gig-3');
    assert.equal(slugCandidate('x'.repeat(200), 12).length, 200);
    assert.equal(sanitizeSlug('y'.repeat(300)).length, 200);
  });

  it('escapes LIKE wildcards', () => {
    assert.equal(likeEscape('50%_off!'), '50!%!_off!!');
  });
});
