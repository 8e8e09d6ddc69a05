import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { apiChangesSection, unmentioned } from '../../scripts/api-diff/changelog.js';
import { type Report, compareDocuments, formatReport, majorOf } from '../../scripts/api-diff/compare.js';

/**
 * The breaking-change comparer (docs/api-versioning.md) on planted documents: each a copy of the
 * released document with one change, so every kind of break is caught through real $refs, allOf
 * and shared components, and every addition passes and is listed.
 */

// Planted edits reach deep into the document, so its nodes are loosely typed.
type Json = Record<string, any>;
const RELEASED = path.resolve(import.meta.dirname, '../../openapi/released/openapi.yaml');
const released = YAML.parse(fs.readFileSync(RELEASED, 'utf8')) as Json;

/** The released document with one change made by `edit`, compared with the released one. */
function plant(edit: (document: Json) => void): Report {
  const document = structuredClone(released);
  edit(document);
  return compareDocuments(released, document);
}

/** Asserts the report fails with a breaking change at `location` whose message contains `message`. */
function assertBreaks(report: Report, location: string, message: string): void {
  assert.equal(report.passes, false, formatReport(report));
  assert.ok(
    report.breaking.some((change) => change.location === location && change.message.includes(message)),
    `expected "${location}: …${message}…" in\n${formatReport(report)}`,
  );
}

function assertAdds(report: Report, location: string, message: string): void {
  assert.equal(report.passes, true, formatReport(report));
  assert.deepEqual(report.breaking, []);
  assert.ok(
    report.additions.some((change) => change.location === location && change.message === message),
    `expected "${location}: ${message}" in\n${formatReport(report)}`,
  );
}

const getEvents = (document: Json): Json => document.paths['/events'].get;

describe('the breaking-change comparer (scripts/api-diff)', () => {
  it('finds nothing between the released document and itself', () => {
    const report = compareDocuments(released, structuredClone(released));
    assert.deepEqual([report.breaking, report.additions, report.passes], [[], [], true]);
  });

  describe('flags each kind of breaking change', () => {
    it('a removed path', () => {
      assertBreaks(
        plant((d) => delete d.paths['/events.ics']),
        '/events.ics',
        'path removed',
      );
    });

    it('a path moved to another spelling (/events/{id}.ics → /events/{id}/ics), even when the old one stays as an undocumented alias', () => {
      const report = plant((d) => {
        d.paths['/events/{id}/ics'] = d.paths['/events/{id}.ics'];
        delete d.paths['/events/{id}.ics'];
      });
      assertBreaks(report, '/events/{id}.ics', 'path removed');
      assert.ok(report.additions.some((change) => change.location === '/events/{id}/ics' && change.message === 'new path'));
    });

    it('a removed operation', () => {
      assertBreaks(
        plant((d) => delete d.paths['/events/{id}'].patch),
        'PATCH /events/{id}',
        'operation removed',
      );
    });

    it('a removed parameter', () => {
      const report = plant((d) => (getEvents(d).parameters = getEvents(d).parameters.filter((p: Json) => p.$ref !== '#/components/parameters/Search')));
      assertBreaks(report, 'GET /events query parameter search', 'parameter removed');
    });

    it('a removed response field, wherever the schema is used (here inside list items and the change feed)', () => {
      const report = plant((d) => delete d.components.schemas.Event.properties.title);
      assertBreaks(report, 'GET /events/{id} response 200 application/json .title', 'response field removed');
      assertBreaks(report, 'GET /events response 200 application/json .events[].title', 'response field removed');
    });

    it('a response field no longer always present', () => {
      const report = plant((d) => (d.components.schemas.Event.required = d.components.schemas.Event.required.filter((n: string) => n !== 'slug')));
      assertBreaks(report, 'GET /events/{id} response 200 application/json .slug', 'no longer always present');
    });

    it('a narrowed request type (a parameter)', () => {
      const report = plant((d) => (d.components.parameters.Search.schema.type = 'integer'));
      assertBreaks(report, 'GET /events query parameter search', 'type string became integer');
    });

    it('a narrowed request type (a body property inside allOf)', () => {
      const report = plant((d) => (d.components.schemas.EventCreate.allOf[0].properties.title = { type: 'integer' }));
      assertBreaks(report, 'POST /events body application/json .title', 'type string became integer');
    });

    it('a changed response type', () => {
      const report = plant((d) => (d.components.schemas.Event.properties.id.type = 'string'));
      assertBreaks(report, 'GET /events/{id} response 200 application/json .id', 'type integer became string');
    });

    it('a narrowed request enum', () => {
      const report = plant((d) => (d.components.parameters.ListOrder.schema.enum = ['asc']));
      assertBreaks(report, 'GET /events query parameter order', 'no longer accepts "desc"');
    });

    it('a narrowed request bound', () => {
      const report = plant((d) => (d.components.parameters.Search.schema.maxLength = 100));
      assertBreaks(report, 'GET /events query parameter search', 'maxLength 200 became 100');
    });

    it('a new enum value in a response', () => {
      const report = plant((d) => (d.components.schemas.Event.properties.status.enum = ['publish', 'draft']));
      // An unrestricted string that becomes an enum only narrows what is answered: compatible.
      assert.equal(report.passes, true, formatReport(report));
      const widened = structuredClone(released);
      widened.components.schemas.Event.properties.status.enum = ['publish', 'draft', 'archived'];
      const before = structuredClone(released);
      before.components.schemas.Event.properties.status.enum = ['publish', 'draft'];
      assertBreaks(compareDocuments(before, widened), 'GET /events/{id} response 200 application/json .status', 'may now answer "archived"');
    });

    it('a new required parameter', () => {
      const report = plant((d) => getEvents(d).parameters.push({ name: 'calendar', in: 'query', required: true, schema: { type: 'string' } }));
      assertBreaks(report, 'GET /events query parameter calendar', 'new required parameter');
    });

    it('an optional parameter that became required', () => {
      const report = plant((d) => (d.components.parameters.Search.required = true));
      assertBreaks(report, 'GET /events query parameter search', 'parameter became required');
    });

    it('a new required body property', () => {
      const report = plant((d) => {
        const create = d.components.schemas.EventCreate.allOf[0];
        create.properties.calendar = { type: 'string' };
        create.required.push('calendar');
      });
      assertBreaks(report, 'POST /events body application/json .calendar', 'new required property');
      assertBreaks(report, 'POST /events body application/x-www-form-urlencoded .calendar', 'new required property');
    });

    it('a removed response header', () => {
      const report = plant((d) => delete d.components.responses.Event.headers.ETag);
      assertBreaks(report, 'GET /events/{id} response 200 header etag', 'response header removed');
    });

    it('an anonymous operation that now requires credentials', () => {
      const report = plant((d) => (d.paths['/events/{id}'].get.security = [{ basicAuth: [] }]));
      assertBreaks(report, 'GET /events/{id}', 'now requires credentials');
    });

    it('a credential scheme no longer accepted', () => {
      const report = plant((d) => (d.paths['/events'].post.security = [{ basicAuth: [] }]));
      assertBreaks(report, 'POST /events', 'no longer accepts bearerAuth credentials');
    });

    it('a removed request media type', () => {
      const report = plant((d) => delete d.paths['/events'].post.requestBody.content['application/x-www-form-urlencoded']);
      assertBreaks(report, 'POST /events body application/x-www-form-urlencoded', 'no longer accepted');
    });
  });

  describe('passes and lists additions', () => {
    it('a new optional parameter', () => {
      const report = plant((d) => getEvents(d).parameters.push({ name: 'calendar', in: 'query', schema: { type: 'string' } }));
      assertAdds(report, 'GET /events query parameter calendar', 'new optional parameter');
    });

    it('a new response field', () => {
      const report = plant((d) => (d.components.schemas.Event.properties.calendar = { type: 'string' }));
      assertAdds(report, 'GET /events/{id} response 200 application/json .calendar', 'new response field');
    });

    it('a new path', () => {
      const report = plant((d) => (d.paths['/calendars'] = { get: { responses: { 200: { description: 'Calendars.' } } } }));
      assertAdds(report, '/calendars', 'new path');
      assert.match(formatReport(report), /Additions and other compatible changes: 1\n {2}- \/calendars: new path/);
    });

    it('a widened request type and enum', () => {
      const report = plant((d) => (d.components.parameters.ListOrder.schema.enum = ['asc', 'desc', 'ASC', 'DESC']));
      assertAdds(report, 'GET /events query parameter order', 'now also accepts "ASC", "DESC"');
    });

    it('a deprecated operation or parameter', () => {
      const report = plant((d) => {
        d.paths['/events/{id}.ics'].get.deprecated = true;
        d.components.parameters.Search.deprecated = true;
      });
      assertAdds(report, 'GET /events/{id}.ics', 'deprecated');
      assertAdds(report, 'GET /events query parameter search', 'deprecated');
    });

    it('a renamed path parameter (the same route to a client)', () => {
      const report = plant((d) => {
        d.components.parameters.IdPath.name = 'event_id';
        d.paths = Object.fromEntries(Object.entries(d.paths).map(([route, item]) => [route.replace('{id}', '{event_id}'), item]));
      });
      assert.deepEqual(report.breaking, [], formatReport(report));
    });
  });

  describe('the major of info.version', () => {
    it('a raised major lets a breaking change pass, still listed', () => {
      const report = plant((d) => {
        delete d.paths['/events.ics'];
        d.info.version = '2.0.0';
      });
      assert.equal(report.passes, true);
      assert.equal(report.majorRaised, true);
      assert.deepEqual(report.breaking, [{ breaking: true, location: '/events.ics', message: 'path removed' }]);
      assert.match(formatReport(report), /allowed because the major of info.version was raised/);
    });

    it('a raised minor does not', () => {
      const report = plant((d) => {
        delete d.paths['/events.ics'];
        d.info.version = '1.1.0';
      });
      assert.equal(report.passes, false);
      assert.match(formatReport(report), /^FAIL: /m);
    });

    it('reads the major of a version', () => {
      assert.deepEqual([majorOf('1.0.0'), majorOf('12.3'), majorOf(undefined)], [1, 12, NaN]);
    });
  });

  describe('the CHANGELOG.md section it asks for', () => {
    const changelog = (section: string): string => `# Changelog\n\nIntro.\n\n## Unreleased\n\n${section}\n## 2026-11-26: older\n\n### API changes\n\n- \`/events/{id}/ics\`\n`;
    const moved = plant((d) => {
      d.paths['/events/{id}/ics'] = d.paths['/events/{id}.ics'];
      delete d.paths['/events/{id}.ics'];
      d.paths['/events'].put = d.paths['/events/{id}'].put;
    });

    it('is the "### API changes" subsection of the first section only', () => {
      assert.equal(apiChangesSection(changelog('### Other changes\n\n- x\n')), null);
      assert.match(apiChangesSection(changelog('### Other\n\n### API changes\n\n- y\n')) ?? '', /^API changes\n\n- y/);
    });

    it('must name every added or removed path, and the path of every added or removed operation', () => {
      const section = apiChangesSection(changelog('### API changes\n\n- `/events/{id}/ics` replaces `/events/{id}.ics`.\n'))!;
      assert.deepEqual(unmentioned(moved, section), ['/events']);
      assert.deepEqual(unmentioned(moved, `${section} \`PUT /events\``), []);
    });
  });
});
