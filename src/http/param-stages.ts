import type { RequestHandler } from 'express';
import type { ParamProblem } from '../core/errors.js';
import { TYPE_PROBLEMS } from '../operations/shared/operation.js';
import type { InputShapes } from './input.js';

/**
 * Which bad parameters an error names (docs/contract.md §4): WordPress checks a request's parameters
 * in stages and answers with the first stage that finds a problem: its arguments' own checks
 * (`validate_callback`: pages, dates, ids that must exist, statuses…), then the type of the arguments
 * that have no such check, then its handler's own checks. So `per_page=0&featured=maybe` names
 * `per_page` alone, and `featured=maybe&venue=987654321` names `venue` alone.
 *
 * The plugin's arguments checked by their type alone are these booleans. A value of one that is no
 * boolean is taken out of the request here, before the validator (the other stages' checks run
 * without it), and its problem is kept for the operation to answer once its own parameter checks
 * passed (operations/shared/operation.ts `typeProblemsOf`).
 */
const CHECKED_BY_TYPE_ONLY = new Set([
  'all_day',
  'featured',
  'geoloc',
  'has_events',
  'hide_empty',
  'hide_from_listings',
  'only_with_upcoming',
  'show_map',
  'show_map_link',
  'sticky',
]);

const notBoolean = (name: string): ParamProblem => ({ message: `${name} is not of type boolean.`, code: 'rest_invalid_type' });

/** Takes type-checked booleans that are no booleans out of the query and the body (after their normalisation). */
export function deferTypeProblems(shapes: InputShapes): RequestHandler {
  return (req, res, next) => {
    const problems: Record<string, ParamProblem> = {};
    const query = req.query as Record<string, unknown>;
    const keptQuery = { ...query };
    for (const name of Object.keys(query)) {
      if (!CHECKED_BY_TYPE_ONLY.has(name) || !shapes.queryBooleans.has(name) || query[name] === 'true' || query[name] === 'false') continue;
      problems[name] = notBoolean(name);
      delete keptQuery[name];
    }
    // Express 5 parses `req.query` anew on every read: the kept query replaces it for the stages after.
    if (Object.keys(keptQuery).length !== Object.keys(query).length)
      Object.defineProperty(req, 'query', { value: keptQuery, writable: true, configurable: true, enumerable: true });
    const body = req.body as Record<string, unknown> | undefined;
    const shape = shapes.bodies.find((b) => b.method === req.method && b.pattern.test(req.path));
    if (shape && body && typeof body === 'object' && !Array.isArray(body)) {
      for (const name of Object.keys(body)) {
        if (!CHECKED_BY_TYPE_ONLY.has(name) || !shape.booleans.has(name) || typeof body[name] === 'boolean') continue;
        problems[name] = notBoolean(name);
        delete body[name];
      }
    }
    if (Object.keys(problems).length) res.locals[TYPE_PROBLEMS] = problems;
    next();
  };
}
