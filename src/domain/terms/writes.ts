import { invalidParam, RestError, termNotFound } from '../../core/errors.js';
import type { Repositories } from '../../repositories/registry.js';
import type { Taxonomy } from '../../repositories/taxonomies.js';
import { TermNameTaken, type TermRow } from '../../repositories/terms.js';
import { htmlInput } from '../../text/html.js';
import { HtmlElementBudget } from '../../text/html-structure.js';
import { TEXT_LIMITS, tooLong } from '../../text/limits.js';
import { sanitizeTextField } from '../../text/plain-text.js';
import { sanitizeSlug } from '../../text/slugs.js';
import { treeLock } from '../../db/write-locks.js';

/** Term fields a create or update body may carry (tags have no `parent`). */
export interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  parent?: number;
}

/** The term the path names. Not found: 404 `rest-term-not-found`; an id of the other taxonomy: 400 `rest_invalid_param` on `id`, as the plugin answers. */
export async function findTerm(repositories: Repositories, taxonomy: Taxonomy, id: number): Promise<TermRow> {
  const term = await repositories.terms.findById(id);
  if (!term) throw termNotFound(id);
  if (term.taxonomy !== taxonomy.name) throw invalidParam('id', `id ${id} is not ${taxonomy.hierarchical ? 'an event category' : 'an event tag'}.`);
  return term;
}

/** The parent must be 0 or an existing term of this taxonomy, and never the term itself or below it. */
export async function checkParent(repositories: Repositories, taxonomy: Taxonomy, parent: number, termId?: number): Promise<void> {
  if (parent === 0) return;
  const repo = repositories.terms;
  const found = await repo.findById(parent);
  if (!found || found.taxonomy !== taxonomy.name) throw invalidParam('parent', `parent ${parent} is not an existing ${taxonomy.collection === 'categories' ? 'category' : 'tag'}.`);
  if (termId !== undefined && (await repo.descendantIds(termId)).has(parent)) {
    throw invalidParam('parent', 'parent cannot be the term itself or one of its descendants.');
  }
}

/**
 * The write locks (db/write-locks.ts) a create or update with this input takes: the taxonomy's tree
 * when it sets a parent, so that the parent's check (`checkParent`, run again inside the write) and
 * the write itself are one step for concurrent writers. Deleting a category takes it always (`deleting`).
 */
export function termWriteLocks(taxonomy: Taxonomy, input: TermInput, deleting = false): string[] {
  const movesTree = deleting || (input.parent !== undefined && input.parent !== 0);
  return taxonomy.hierarchical && movesTree ? [treeLock(taxonomy.name)] : [];
}

/** Term names are plain text; descriptions are HTML, cleaned for every user (docs/contract.md §3). */
export function cleanTermInput(taxonomy: Taxonomy, body: TermInput): TermInput {
  const out: TermInput = { ...body };
  if (body.name !== undefined) {
    out.name = sanitizeTextField(body.name);
    if (out.name === '') throw invalidParam('name', 'name must not be empty.');
    const long = tooLong('name', out.name, TEXT_LIMITS.termName);
    if (long) throw invalidParam('name', long);
  }
  if (body.slug !== undefined) {
    out.slug = sanitizeSlug(body.slug);
    if (out.slug === '') throw invalidParam('slug', 'slug must contain a letter or a digit.');
  }
  if (body.description !== undefined) {
    const html = htmlInput('description', body.description, 'term', new HtmlElementBudget());
    if ('problem' in html) throw invalidParam('description', html.problem);
    out.description = html.value;
  }
  const longDescription = out.description === undefined ? undefined : tooLong('description', out.description, TEXT_LIMITS.termDescription);
  if (longDescription) throw invalidParam('description', longDescription);
  if (!taxonomy.hierarchical && 'parent' in body) {
    throw new RestError(400, 'rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.');
  }
  return out;
}

/** WordPress's `term_exists` refusal, naming the term that is in the way. */
function termExists(taxonomy: Taxonomy, term: TermRow): RestError {
  return new RestError(400, 'term_exists', taxonomy.existsMessage, { term_id: term.id });
}

/** Inserts a checked new term (in the create's transaction) and returns its id (`wantedId`: an import's kept id, docs/importing.md). */
export async function insertTerm(repositories: Repositories, taxonomy: Taxonomy, input: TermInput, wantedId?: number): Promise<number> {
  const parent = input.parent ?? 0;
  const name = input.name ?? '';
  const terms = repositories.terms;
  // Again under the tree's lock: the parent may have been deleted since the request's check.
  await checkParent(repositories, taxonomy, parent);
  // WordPress refuses a second term with the same name at the same level, unless the caller
  // gives it a different slug that is still free.
  const sameName = await terms.findByName(taxonomy, parent, name);
  if (sameName && (input.slug === undefined || (await terms.findBySlug(taxonomy, input.slug)))) throw termExists(taxonomy, sameName);
  try {
    return await terms.insert(
      taxonomy,
      { name, description: input.description ?? '', parent },
      input.slug ?? (sanitizeSlug(name) || taxonomy.fallbackSlug),
      sameName !== undefined,
      wantedId,
    );
  } catch (err) {
    throw err instanceof TermNameTaken ? termExists(taxonomy, err.existing) : err;
  }
}

/** An update may not take a slug another term of the taxonomy has, nor a name another term has at the same level. */
export async function checkUpdateClashes(repositories: Repositories, taxonomy: Taxonomy, term: TermRow, input: TermInput): Promise<void> {
  const repo = repositories.terms;
  const parent = input.parent ?? term.parent;
  if (input.slug !== undefined && input.slug !== term.slug) {
    const owner = await repo.findBySlug(taxonomy, input.slug);
    if (owner && owner.id !== term.id) {
      throw new RestError(400, 'term_exists', 'A term with the slug provided already exists in this taxonomy.', { term_id: owner.id });
    }
  }
  if (input.name !== undefined || input.parent !== undefined) {
    const sameName = await repo.findByName(taxonomy, parent, input.name ?? term.name);
    if (sameName && sameName.id !== term.id) throw termExists(taxonomy, sameName);
  }
}

/**
 * Writes a checked update (in the write's transaction, with `termWriteLocks`). A clash the checks
 * before could not see (a concurrent write) is reported like theirs, naming the term in the way.
 */
export async function updateTerm(repositories: Repositories, taxonomy: Taxonomy, term: TermRow, input: TermInput, expected?: number): Promise<void> {
  // Again under the tree's lock (termWriteLocks): a concurrent write may have moved the parent below
  // this term (a cycle) or deleted it since the request's check.
  if (input.parent !== undefined) await checkParent(repositories, taxonomy, input.parent, term.id);
  const parent = input.parent ?? term.parent;
  const changes: Partial<TermRow> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (input.slug !== undefined) changes.slug = input.slug;
  if (input.parent !== undefined) changes.parent = input.parent;
  return repositories.terms.update(
    term,
    changes,
    async () => {
      const clash =
        (input.slug !== undefined && (await repositories.terms.findBySlug(taxonomy, input.slug))) ||
        (await repositories.terms.findByName(taxonomy, parent, input.name ?? term.name));
      return new RestError(400, 'term_exists', taxonomy.existsMessage, { term_id: clash ? clash.id : term.id });
    },
    expected,
  );
}
