import type { ApiDocument } from './openapi/document.js';
import { allowPublic, type OperationTable } from './http/operation.js';
import { buildRouteTable, namespaceIndex } from './discovery/namespace-index.js';
import { documentationFor } from './discovery/documentation.js';
import { categoryOperations, tagOperations } from './terms/handlers.js';
import { organizerOperations, venueOperations } from './linked/handlers.js';
import { eventOperations } from './events/handlers.js';

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
    ...eventOperations,


  };
}
