import type { ApiDocument } from './openapi/document.js';
import { allowPublic, type Operation, type OperationId, type OperationTable } from './http/operation.js';
import { notImplemented } from './http/errors.js';
import { buildRouteTable, namespaceIndex } from './discovery/namespace-index.js';
import { documentationFor } from './discovery/documentation.js';
import { categoryOperations, tagOperations } from './terms/handlers.js';
import { organizerOperations, venueOperations } from './linked/handlers.js';

/**
 * An operation whose capability belongs to a later issue: it answers 501 `rest_not_implemented`.
 * This is the only place a 501 comes from.
 */
function pending<Op extends OperationId>(operationId: Op): Operation<Op> {
  return {
    permission: allowPublic,
    handler: async () => {
      throw notImplemented(operationId);
    },
  };
}

/** operationId → permission + handler, for every operation of the document (checked by the compiler). */
export function createOperationTable(document: ApiDocument, routes: ReturnType<typeof buildRouteTable>): OperationTable {
  return {
    getNamespaceIndex: {
      permission: allowPublic,
      handler: async (ctx) => ({ status: 200, body: namespaceIndex(routes, ctx.urls) }),
    },
    getDocumentation: {
      permission: allowPublic,
      handler: async (ctx) => ({ status: 200, body: documentationFor(document, ctx.urls) }),
    },
    ...categoryOperations,
    ...tagOperations,
    ...venueOperations,
    ...organizerOperations,

    listEvents: pending('listEvents'),
    createEvent: pending('createEvent'),
    getEvent: pending('getEvent'),
    updateEvent: pending('updateEvent'),
    putEvent: pending('putEvent'),
    patchEvent: pending('patchEvent'),
    deleteEvent: pending('deleteEvent'),
    getEventBySlug: pending('getEventBySlug'),
    updateEventBySlug: pending('updateEventBySlug'),
    putEventBySlug: pending('putEventBySlug'),
    patchEventBySlug: pending('patchEventBySlug'),
    deleteEventBySlug: pending('deleteEventBySlug'),

  };
}
