import type { ApiDocument } from '../openapi/document.js';
import { anyone, noTarget, operation, queryInput, type OperationContext, type OperationTable } from './shared/operation.js';
import { buildRouteTable, namespaceIndex } from './namespace-index.js';
import { documentationFor } from './documentation.js';
import { termOperations } from './terms.js';
import { linkedOperations } from './linked.js';
import { eventOperations } from './events.js';
import { eventListOperations } from './event-lists.js';
import { eventFeedOperations } from './event-feeds.js';
import { eventOccurrenceOperations } from './event-occurrences.js';
import { changeOperations } from './changes.js';
import { webhookOperations } from './webhooks.js';
import { importOperations } from './imports.js';
import type { Resolver } from '../core/outbound.js';
import { subscriptionOperations } from './subscriptions.js';

/**
 * operationId → the stages of the operation, each naming the policy action that decides who may call
 * it (policies/posts.ts, policies/terms.ts, policies/webhooks.ts, policies/subscriptions.ts; `anyone` for the open discovery
 * routes). Every operation of the document is here, checked by the compiler. `resolveHost` is how
 * webhook URLs are checked (core/outbound.ts).
 */
export function createOperationTable(document: ApiDocument, routes: ReturnType<typeof buildRouteTable>, resolveHost: Resolver): OperationTable {
  return {
    getNamespaceIndex: operation({
      parse: (ctx: OperationContext<'getNamespaceIndex'>) => queryInput(ctx),
      load: noTarget,
      authorize: anyone,
      execute: async (ctx) => ({ status: 200, body: namespaceIndex(routes, ctx.urls) }),
    }),
    getDocumentation: operation({
      parse: (ctx: OperationContext<'getDocumentation'>) => queryInput(ctx),
      load: noTarget,
      authorize: anyone,
      execute: async (ctx) => ({ status: 200, body: documentationFor(document, ctx.urls) }),
    }),
    ...termOperations,
    ...linkedOperations,
    ...eventOperations,
    ...eventListOperations,
    ...eventFeedOperations,
    ...eventOccurrenceOperations,
    ...changeOperations,
    ...webhookOperations(resolveHost),
    ...importOperations,
    ...subscriptionOperations,
  };
}
