import { Kind, OperationTypeNode, type DocumentNode } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import type { Role } from '../core/auth.js';
import { resolvers } from '../graphql/resolvers.js';

export type Plan = 'advanced' | 'enterprise';

/**
 * The plan a document needs, read from where its resolvers declare it: the `@Authorized` roles of
 * the root fields it selects (on the method or on its resolver class). REST checks it before the
 * parameters, so a basic plan learns that first; the resolver still checks it when it runs.
 */
export function planOf(document: DocumentNode): Plan | undefined {
  let cached = plans.get(document);
  if (cached === undefined) plans.set(document, (cached = readPlan(document) ?? null));
  return cached ?? undefined;
}

const plans = new WeakMap<DocumentNode, Plan | null>();

function readPlan(document: DocumentNode): Plan | undefined {
  const storage = getMetadataStorage();
  const ours = new Set<unknown>(resolvers);
  const roles: Role[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const fields = definition.operation === OperationTypeNode.MUTATION ? storage.mutations : definition.operation === OperationTypeNode.SUBSCRIPTION ? storage.subscriptions : storage.queries;
    for (const selection of definition.selectionSet.selections) {
      if (selection.kind !== Kind.FIELD) continue;
      const field = fields.find((candidate) => candidate.schemaName === selection.name.value && ours.has(candidate.target));
      if (!field) continue;
      const onMethod = storage.authorizedFields.find((entry) => entry.target === field.target && entry.fieldName === field.methodName);
      const onClass = storage.authorizedResolver.find((entry) => entry.target === field.target);
      // type-graphql keeps @Authorized's roles untyped; ours are Roles.
      roles.push(...(((onMethod ?? onClass)?.roles ?? []) as Role[]));
    }
  }
  return roles.includes('enterprise') ? 'enterprise' : roles.includes('advanced') ? 'advanced' : undefined;
}
