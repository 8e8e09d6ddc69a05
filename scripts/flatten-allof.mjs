// Flattens, in the bundled document, every `allOf` whose only member is a `$ref` (scripts/bundle.mjs).
//
// The sources write `EventUpdate` as `allOf: [$ref: EventFields]`, so that the fields an update takes
// are listed once, and a property as `allOf: [$ref: DateInput]` beside its own description. Code
// generators read such a schema badly (openapi-generator makes `EventUpdate` a model without fields,
// issue #28), so the bundle shows the plain schema instead: the referenced schema (its own `allOf`
// members merged: properties and `required` together, other keywords from the first member that has
// them), then the schema's own keywords over it (its description wins). Member `$ref`s to other
// named components stay references. openapi/README.md "What generators need" states the rule.

/** `#/components/schemas/EventFields` → that node of the document. */
function resolve(document, ref) {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are bundled: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .reduce((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
}

/** One schema from a referenced schema: an `allOf` of its own is merged into a plain object. */
function plain(document, schema, seen) {
  if (schema.$ref !== undefined) {
    if (seen.has(schema.$ref)) throw new Error(`allOf cycle through ${schema.$ref}`);
    const target = resolve(document, schema.$ref);
    if (!target) throw new Error(`unresolved $ref ${schema.$ref}`);
    return plain(document, target, new Set(seen).add(schema.$ref));
  }
  if (!schema.allOf) return globalThis.structuredClone(schema);
  const { allOf: members, ...own } = schema;
  const merged = {};
  const add = (part, wins) => {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties') merged.properties = { ...merged.properties, ...value };
      else if (key === 'required') merged.required = [...new Set([...(merged.required ?? []), ...value])];
      else if (wins || !(key in merged)) merged[key] = value;
    }
  };
  for (const member of members) add(plain(document, member, seen), false);
  // The schema's own keywords (its description) win over its members'.
  add(globalThis.structuredClone(own), true);
  if (merged.properties && merged.type === undefined) merged.type = 'object';
  return merged;
}

/** Whether `node` is `allOf: [ {$ref} ]` (with any sibling keywords). */
function isSingleRefAllOf(node) {
  return Array.isArray(node.allOf) && node.allOf.length === 1 && typeof node.allOf[0]?.$ref === 'string';
}

/** Rewrites the document in place; returns the JSON pointers of the schemas it flattened. */
export function flattenSingleRefAllOf(document) {
  const flattened = [];
  const walk = (node, pointer) => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${pointer}/${i}`));
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (value && typeof value === 'object' && !Array.isArray(value) && isSingleRefAllOf(value)) {
        node[key] = plain(document, value, new Set());
        flattened.push(`${pointer}/${key}`);
      }
      walk(node[key], `${pointer}/${key}`);
    }
  };
  walk(document, '');
  return flattened;
}
