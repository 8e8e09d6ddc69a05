import assert from 'node:assert/strict';
import { pathToRegexp } from 'path-to-regexp';
// The validator's own route order (express-openapi-validator 5.6), to compare ours with.
import { sortRoutes } from 'express-openapi-validator/dist/framework/openapi.spec.loader.js';
import { listOperations, loadDocument, NAMESPACE } from '../../src/openapi/document.js';
import { RouteLookup, validatorStages } from '../../src/http/validator.js';
import { testConfig } from '../helpers/app.js';

/** The validator's lookup (middlewares/openapi.metadata.js): every route compiled, the first match wins. */
function validatorFind(routes: Array<{ expressRoute: string }>, path: string): { expressRoute: string; values: string[] } | undefined {
  for (const { expressRoute } of routes) {
    const match = pathToRegexp(expressRoute, { sensitive: false, strict: false } as never).regexp.exec(path);
    if (match) return { expressRoute, values: match.slice(1) };
  }
  return undefined;
}

describe('the validator route lookup, precompiled (http/validator.ts)', () => {
  for (const root of [`/wp-json/${NAMESPACE}`, `/base/wp-json/${NAMESPACE}`]) {
    it(`finds the route the validator finds, under ${root}`, () => {
      const operations = listOperations(loadDocument());
      const lookup = new RouteLookup(operations, root);
      const routes = operations
        .map((op) => ({ expressRoute: `${root}${op.path}`.replace(/\{([^}]+)\}/g, ':$1') }))
        .sort(sortRoutes as never)
        .filter((route, i, all) => all.findIndex((other) => other.expressRoute === route.expressRoute) === i);
      assert.deepEqual(
        lookup.routes.map((route) => route.expressRoute),
        routes.map((route) => route.expressRoute),
      );
      const paths = operations.flatMap((op) => {
        const path = `${root}${op.path}`;
        return ['5', 'by-slug', 'ics', 'a%20b', '%E0%A4%A', 'x.y', 'ÄÖ', ''].flatMap((value) => {
          const filled = path.replace(/\{[^}]+\}/g, value);
          return [filled, `${filled}/`, filled.toUpperCase(), `${filled}//`, `${filled}/extra`, filled.replace('/events', '/events.ics')];
        });
      });
      for (const path of [...paths, root, `${root}/`, '/', '/healthz', `${root}/nothing`]) {
        const ours = lookup.find(path);
        const theirs = validatorFind(routes, path);
        assert.deepEqual(ours && { expressRoute: ours.route.expressRoute, values: ours.values }, theirs, path);
      }
    });
  }
});

describe('the validator stages http/validator.ts replaces', () => {
  it('are still named as it expects: the route lookup and the security check', () => {
    const names = validatorStages(loadDocument(), testConfig(), `/wp-json/${NAMESPACE}`).map((stage) => stage.name);
    assert.ok(names.includes('metadataMiddleware'), names.join(', '));
    assert.ok(names.includes('securityMiddleware'), names.join(', '));
  });
});
