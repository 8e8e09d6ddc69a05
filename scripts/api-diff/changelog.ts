/**
 * The "API changes" section that CHANGELOG.md carries first (docs/api-versioning.md "Releasing the
 * document"): what changed in the API since the released document, in words, for the next release.
 * Pure functions over the changelog's text; test/contract/breaking-changes.test.ts reads the file.
 */
import type { Report } from './compare.js';

/** The text of the `### API changes` subsection of the changelog's first `## ` section, or null. */
export function apiChangesSection(changelog: string): string | null {
  const first = changelog.split(/^## /m)[1];
  if (first === undefined) return null;
  const parts = first.split(/^### /m);
  const section = parts.find((part) => part.startsWith('API changes'));
  return section ?? null;
}

/** The paths of every path-level or operation-level change: these, at least, the section must name. */
export function pathsToMention(report: Report): string[] {
  const routes = [...report.breaking, ...report.additions]
    .filter((change) => /^(path removed|new path|operation removed|new operation)$/.test(change.message))
    .map((change) => change.location.replace(/^[A-Z]+ /, ''));
  return [...new Set(routes)].sort();
}

/** The paths of `report` the section does not name in backticks (`/events/{id}/ics` or `GET /events/{id}/ics`). */
export function unmentioned(report: Report, section: string): string[] {
  return pathsToMention(report).filter((route) => !section.includes(`${route}\``));
}
