import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { projectRoot } from '../../src/openapi/document.js';
import { hasPyYaml, pyYamlTimestampsIn, shapeProblems, timestampsIn } from './document-shape.js';

/**
 * The bundled document has the shape every code generator and contract tool reads right
 * (openapi/README.md "What generators need"): test/contract/document-shape.ts says the rules. Each
 * rule is first shown to fail on a planted bad document, so a checker that sees nothing cannot pass.
 */

const root = projectRoot();
const text = fs.readFileSync(path.join(root, 'generated/openapi.yaml'), 'utf8');

/** A small document that breaks every rule once (and keeps each rule's allowed forms). */
const PLANTED = `
openapi: 3.0.3
info: { title: planted, version: '1' }
paths:
  /things/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: integer } }
    put:
      requestBody:
        content:
          application/json:
            schema: { $ref: '#/components/schemas/ThingUpdate' }
            example: { name: Lamp }
          application/x-www-form-urlencoded:
            schema: { $ref: '#/components/schemas/ThingUpdate' }
      responses:
        '200':
          description: The thing.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Thing' }
        '201':
          description: The thing again, with an example of its own.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Bare' }
              example: { name: Lamp, anyOf: [an example is data, not a union] }
        '204':
          description: No body, so no example.
        '400':
          description: An answer without any example.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Bare' }
components:
  schemas:
    Named:
      anyOf: [{ type: string }, { type: integer }]
    Thing:
      type: object
      properties:
        name: { type: string }
        colour: { oneOf: [{ type: string }, { type: integer }] }
        since: { type: string }
        state: { type: string, nullable: true, enum: [open, shut, null] }
        lit: { type: boolean, enum: [true] }
      example: { name: Lamp, since: 2027-03-01 }
    Bare:
      type: object
      properties:
        name: { type: string }
    ThingUpdate:
      allOf:
        - $ref: '#/components/schemas/Thing'
    Open:
      type: object
      properties:
        example: { oneOf: [{ type: string }, { type: integer }] }
      additionalProperties: true
    Map:
      type: object
      additionalProperties: true
`;

describe('the shape of the bundled document (what generators need)', () => {
  it('the checker finds each planted defect, and nothing in the allowed forms', () => {
    const problems = shapeProblems(YAML.parse(PLANTED));
    assert.deepEqual(problems, [
      'inline union (oneOf) at /components/schemas/Thing/properties/colour: name it in components/schemas',
      'null in an enum at /components/schemas/Thing/properties/state: write the values as a pattern beside nullable: true',
      'enum on a boolean at /components/schemas/Thing/properties/lit: say "Always `true`" in its description instead',
      'allOf of a single $ref at /components/schemas/ThingUpdate: write the plain schema',
      'properties with additionalProperties: true at /components/schemas/Open: drop it and say "other keys may appear"',
      'inline union (oneOf) at /components/schemas/Open/properties/example: name it in components/schemas',
      'PUT /things/{id}: path parameter id has no example',
      'PUT /things/{id}: request body application/x-www-form-urlencoded has no example',
      'PUT /things/{id}: response 400 application/json has no example',
    ]);
    // An answer's example may be its named schema's (the 200 one has `Thing`'s): once `Bare` has one, the 400 has too.
    const fixed = YAML.parse(PLANTED);
    fixed.components.schemas.Bare.example = { name: 'Lamp' };
    assert.ok(!shapeProblems(fixed).some((problem) => problem.includes('response 400')));
  });

  it('has no inline union, no single-$ref allOf, no properties with additionalProperties: true, no null in an enum, and examples everywhere', () => {
    assert.deepEqual(shapeProblems(YAML.parse(text)), []);
  });

  it('holds no value a YAML 1.1 reader takes for a timestamp (read as YAML 1.1 by the yaml package)', () => {
    assert.deepEqual(timestampsIn(PLANTED), ['2027-03-01'], 'the planted unquoted date is found');
    assert.deepEqual(timestampsIn("since: '2027-03-01'\nat: '2027-03-01 19:00:00'"), [], 'quoted dates are strings');
    assert.deepEqual(timestampsIn(text), []);
  });

  it('holds no value PyYAML (yaml.safe_load) takes for a timestamp', function () {
    this.timeout(60_000);
    if (!hasPyYaml()) {
      // Only this one assertion needs python3-yaml; the yaml package's YAML 1.1 reading above still ran.
      console.log('      (skipped: python3 with PyYAML, Debian python3-yaml, is not installed)');
      this.skip();
    }
    assert.deepEqual(pyYamlTimestampsIn(PLANTED), ['2027-03-01'], 'the planted unquoted date is found');
    assert.deepEqual(pyYamlTimestampsIn(text), []);
  });

  it('its sources under openapi/ hold no unquoted date either (a reader of the sources sees strings)', () => {
    const sources = path.join(root, 'openapi');
    const files = fs.readdirSync(sources, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.yaml'));
    assert.ok(files.length > 20, 'the sources are found');
    const found = files.flatMap((file) => timestampsIn(fs.readFileSync(path.join(sources, file), 'utf8')).map((value) => `${file}: ${value}`));
    assert.deepEqual(found, []);
  });
});
