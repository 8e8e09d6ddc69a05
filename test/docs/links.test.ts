import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Every link and every citation of the docs resolves (docs/README.md "How to cite"): relative
 * Markdown links in README.md, CHANGELOG.md and docs/ point to a file that exists and, with a
 * `#fragment`, to a heading of it (GitHub's anchors); `docs/FILE.md §N` citations name a numbered
 * section of that file and `docs/FILE.md "Heading"` citations one of its headings, wherever they are
 * written (src/, test/, scripts/, .ci/, openapi/, docs/, the README); and nothing cites the README by
 * section any more, since it holds no guides.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const SELF = path.relative(ROOT, import.meta.filename);

/** Paths (relative to ROOT, `/`-separated) of the files under `dir` whose names pass `keep`. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(ROOT, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(child);
      } else if (entry.isFile() && keep(entry.name)) found.push(child);
    }
  };
  if (fs.existsSync(path.join(ROOT, dir))) walk(dir);
  return found.sort();
}

const MARKDOWN = ['README.md', 'CHANGELOG.md', 'openapi/README.md', ...filesUnder('docs', (name) => name.endsWith('.md'))];
const CITING = [
  'README.md',
  ...['src', 'test', 'scripts', '.ci', 'openapi', 'docs'].flatMap((dir) => filesUnder(dir, (name) => /\.(ts|mts|mjs|js|cjs|ya?ml|md|json|sh)$|^[^.]+$/.test(name))),
]
  // openapi/released/ is a frozen copy of a released bundle (docs/api-versioning.md): like generated/, its
  // citations are those of the day it was released and are not edited afterwards.
  .filter((file) => file !== SELF && !file.startsWith('openapi/released/'));

function read(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

/** The lines of a Markdown text outside fenced code blocks, with their 1-based numbers. */
export function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (marker !== undefined && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) lines.push({ line: index + 1, text });
  });
  return lines;
}

/** A heading's text as rendered: links reduced to their text, code spans to their content. */
function renderedText(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .trim();
}

/** GitHub's anchor for a heading (github-slugger): lower case, punctuation and symbols dropped, spaces to hyphens. */
export function githubSlug(heading: string): string {
  return renderedText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

interface Heading {
  text: string;
  slug: string;
}

const headingCache = new Map<string, Heading[]>();

/** A Markdown file's ATX headings, with their anchors numbered as GitHub numbers repeated ones. */
function headingsOf(file: string): Heading[] {
  let headings = headingCache.get(file);
  if (headings === undefined) {
    const seen = new Map<string, number>();
    headings = [];
    for (const { text } of proseLines(read(file))) {
      const match = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
      if (match === null) continue;
      const base = githubSlug(match[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      headings.push({ text: renderedText(match[1]!), slug: count === 0 ? base : `${base}-${count}` });
    }
    headingCache.set(file, headings);
  }
  return headings;
}

/** The section numbers a file's headings carry: `## 5. Event semantics`, `### 5.5 List date logic`, `## §3 …`. */
function sectionsOf(file: string): Set<string> {
  const numbers = new Set<string>();
  for (const { text } of headingsOf(file)) {
    const match = /^§?\s*(\d+(?:\.\d+)*)\.?(?:\s|$)/.exec(text);
    if (match !== null) numbers.add(match[1]!);
  }
  return numbers;
}

function exists(file: string): boolean {
  return fs.existsSync(path.join(ROOT, file));
}

/** Problems with the relative links of one Markdown file. */
export function brokenLinks(file: string, markdown = read(file)): string[] {
  const problems: string[] = [];
  for (const { line, text } of proseLines(markdown)) {
    // Code spans are not links.
    const prose = text.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length));
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [targetPath = '', fragment] = target.split('#', 2) as [string, string | undefined];
      const where = `${file}:${line}: ${target}`;
      const resolved = targetPath === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(targetPath)));
      if (resolved.startsWith('..') || !exists(resolved)) {
        problems.push(`${where}: no file ${resolved}`);
        continue;
      }
      if (fragment === undefined || fragment === '' || !resolved.endsWith('.md')) continue;
      const slug = decodeURIComponent(fragment).toLowerCase();
      if (!headingsOf(resolved).some((heading) => heading.slug === slug)) problems.push(`${where}: no heading with the anchor #${slug} in ${resolved}`);
    }
  }
  return problems;
}

/** The 1-based line of an offset. */
function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** Joins a citation's heading that a comment wraps over lines back into one line. */
function unwrap(quoted: string): string {
  return quoted.replace(/\s*\n\s*(?:\*|\/\/|#)?\s*/g, ' ').trim();
}

/** Problems with the citations in one file's text. */
export function brokenCitations(file: string, text = read(file)): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(/\bdocs\/([\w./-]+?\.md)\s+§\s*(\d+(?:\.\d+)*)/g)) {
    const target = `docs/${match[1]!}`;
    const where = `${file}:${lineAt(text, match.index)}: ${target} §${match[2]!}`;
    if (!exists(target)) problems.push(`${where}: no file ${target}`);
    else if (!sectionsOf(target).has(match[2]!)) problems.push(`${where}: ${target} has no section ${match[2]!}`);
  }
  for (const match of text.matchAll(/\bdocs\/([\w./-]+?\.md)`?,?\s+"([^"]{1,200})"/g)) {
    const target = `docs/${match[1]!}`;
    const heading = unwrap(match[2]!);
    const where = `${file}:${lineAt(text, match.index)}: ${target} "${heading}"`;
    if (!exists(target)) problems.push(`${where}: no file ${target}`);
    else if (!headingsOf(target).some((candidate) => candidate.text === heading || candidate.text === heading.replace(/`/g, ''))) {
      problems.push(`${where}: ${target} has no heading "${heading}"`);
    }
  }
  for (const match of text.matchAll(/\bREADME(?:'s)?,?\s+"[^"\n]*"?/g)) {
    problems.push(`${file}:${lineAt(text, match.index)}: ${match[0]}: the README holds no guides; cite docs/FILE.md "Heading" (docs/README.md "How to cite")`);
  }
  return problems;
}

/**
 * The files of the repository a guide names in code spans (`src/http/app.ts`, `test/security/`,
 * `scripts/bench/run.ts`) that do not exist: a guide that names a moved file misleads. CHANGELOG.md
 * is left out, since it tells of files as they were.
 */
export function missingPaths(file: string, text = read(file)): string[] {
  const problems: string[] = [];
  for (const { line, text: prose } of proseLines(text)) {
    for (const match of prose.matchAll(/`((?:src|test|scripts|openapi|generated)\/[A-Za-z0-9_./-]*)`/g)) {
      const named = match[1].replace(/\.js$/, '.ts');
      if (named.includes('*') || exists(named) || exists(match[1])) continue;
      problems.push(`${file}:${line}: no ${match[1]}`);
    }
  }
  return problems;
}

describe('docs: links and citations', () => {
  it('finds the files it checks', () => {
    assert.ok(MARKDOWN.includes('docs/README.md') && MARKDOWN.length > 5, MARKDOWN.join(', '));
    assert.ok(CITING.some((file) => file.startsWith('src/')) && CITING.includes('.ci/run'), 'src/ and .ci/run are searched');
  });

  it('every relative link in README.md, CHANGELOG.md and docs/ points to a file and a heading that exist', () => {
    const problems = MARKDOWN.flatMap((file) => brokenLinks(file));
    assert.deepEqual(problems, []);
  });

  it('every docs/FILE.md §N and docs/FILE.md "Heading" citation names a section that exists, and none cites the README', () => {
    const problems = CITING.flatMap((file) => brokenCitations(file));
    assert.deepEqual(problems, []);
  });

  it('every file of the repository a guide names in a code span exists', () => {
    const problems = MARKDOWN.filter((file) => file !== 'CHANGELOG.md').flatMap((file) => missingPaths(file));
    assert.deepEqual(problems, []);
  });

  it('catches what it is meant to catch', () => {
    assert.deepEqual(missingPaths('docs/x.md', 'see `src/http/app.ts` and `src/nowhere.ts`, `src/core/errors.js`'), ['docs/x.md:1: no src/nowhere.ts']);
    assert.equal(githubSlug('JSON-LD feed (schema.org)'), 'json-ld-feed-schemaorg');
    assert.equal(githubSlug('9. The change feed: `GET {ns}/changes`'), '9-the-change-feed-get-nschanges');
    assert.equal(githubSlug('Documentation page (`/docs`)'), 'documentation-page-docs');
    assert.deepEqual(
      proseLines('a\n```sh\n[x](missing.md)\n```\nb').map((line) => line.text),
      ['a', 'b'],
    );
    assert.equal(brokenLinks('docs/x.md', '[a](missing.md) [b](README.md#no-such-heading) [c](README.md#how-to-cite) `[d](nowhere.md)`').length, 2);
    assert.equal(brokenCitations('x.ts', '(docs/contract.md §14) (docs/contract.md §99) (docs/nowhere.md §1) docs/plugin-behaviour.md §5.5').length, 2);
    assert.equal(brokenCitations('x.ts', '(docs/limits.md "Recurrence rules") (docs/limits.md "No such heading") docs/limits.md §1').length, 2);
    assert.equal(brokenCitations('x.ts', '(README, "Running on a cluster") README "Client SDKs"').length, 2);
    assert.deepEqual(brokenCitations('x.ts', ' * (docs/limits.md\n * "Recurrence\n * rules")'), []);
  });
});
