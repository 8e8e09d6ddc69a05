/**
 * JSON already written for a value that a reply will serialise: the change feed weighs each change's
 * JSON to cut its page (records/change-feed.ts), and the reply's serialiser
 * (operations/shared/reply-body.ts) writes that JSON instead of serialising the change a second time
 * (docs/performance.md "Memory"). Weakly held: it goes with the value.
 */
const known = new WeakMap<object, string>();

/** Remembers `json`, which must be exactly `JSON.stringify(value)`, for the serialiser to write in its place. */
export function knownJson(value: object, json: string): void {
  known.set(value, json);
}

/** The JSON remembered for `value`, if any. */
export function jsonKnownFor(value: object): string | undefined {
  return known.get(value);
}
