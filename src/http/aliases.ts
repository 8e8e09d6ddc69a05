import type { RequestHandler } from 'express';

/**
 * Older URLs the service still answers, rewritten to the documented path before anything routes them.
 * `/events/{id}.ics` became `/events/{id}/ics` (docs/contract.md §11): a parameter inside a path
 * segment is routed wrongly by the tools that read the document (Prism sends `/events/5.ics` to
 * `/events/{id}`, Portman builds `events/{{id}}.ics/:id`, wpapi cannot call it), so only the new path
 * is documented, and links made before it keep working through this alias. Rewriting `req.url` here,
 * after trailing slashes are cut and before the validator, gives the alias the operation's whole
 * pipeline (`Allow`, authentication, validation, the same handler) with nothing of its own.
 */
export function pathAliases(namespaceRoot: string): RequestHandler {
  const escaped = namespaceRoot.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
  // One path segment before `.ics`: `/events/by-slug/x.ics` stays a slug read, `/events.ics` the list feed.
  const eventIcs = new RegExp(`^(${escaped}/events/[^/]+)\\.ics$`);
  return (req, _res, next) => {
    const queryStart = req.url.indexOf('?');
    const pathPart = queryStart === -1 ? req.url : req.url.slice(0, queryStart);
    const alias = eventIcs.exec(pathPart);
    if (alias) req.url = `${alias[1]}/ics${queryStart === -1 ? '' : req.url.slice(queryStart)}`;
    next();
  };
}
