import assert from 'node:assert/strict';

type Rec = Record<string, any>;

/** Update number `i` of a contended event: every linked part of it names the same version. */
export function versionedUpdate(i: number): Rec {
  return {
    title: `Version ${i}`,
    venue: { venue: `Venue ${i}` },
    organizer: [{ organizer: `Organizer ${i}a` }, { organizer: `Organizer ${i}b` }],
    categories: [`Category ${i}`],
    tags: [`Tag ${i}`],
  };
}

/** Asserts that every part of the event's record comes from one and the same `versionedUpdate`. */
export function assertOneVersion(event: Rec): void {
  const version = /^Version (\d+)$/.exec(event.title)?.[1];
  assert.ok(version !== undefined, event.title);
  assert.equal(event.venue.venue, `Venue ${version}`);
  assert.deepEqual(
    event.organizer.map((organizer: Rec) => organizer.organizer),
    [`Organizer ${version}a`, `Organizer ${version}b`],
  );
  assert.deepEqual(
    event.categories.map((term: Rec) => term.name),
    [`Category ${version}`],
  );
  assert.deepEqual(
    event.tags.map((term: Rec) => term.name),
    [`Tag ${version}`],
  );
}
