import 'reflect-metadata';
import { isObjectType, type GraphQLSchema } from 'graphql';
import { buildSchema, getMetadataStorage } from 'type-graphql';
import { authChecker } from './auth.js';
import { resolvers } from './resolvers.js';

let built: Promise<GraphQLSchema> | undefined;

/**
 * The one schema of the product, built from the type-graphql classes. Building is pure, so the
 * result is shared by every server in the process (tests start many).
 */
export function getSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers,
    authChecker,
    // Inputs are validated by the services, which know the REST parameter names to report.
    validate: false,
    // Fields are nullable only where declared: a missing value is a bug, not a null.
    nullableByDefault: false,
  }).then(withPlainFieldsRead);
  return built;
}

/**
 * type-graphql gives every plain field (a property, no field resolver) a resolver that runs the
 * field's middlewares and access check and then reads the property. A field with neither gets
 * GraphQL's own property read instead: the same value, without a function call and an object per
 * field of every response, and a compiled document (execution.ts) reads it inline. Fields with
 * `@Authorized`, middlewares, a field resolver or a schema name other than the property keep theirs.
 */
function withPlainFieldsRead(schema: GraphQLSchema): GraphQLSchema {
  const storage = getMetadataStorage();
  for (const objectType of storage.objectTypes) {
    const type = schema.getType(objectType.name);
    if (!isObjectType(type)) continue;
    const fields = type.getFields();
    for (const field of objectType.fields ?? []) {
      const resolved = storage.fieldResolvers.some(
        (resolver) => resolver.schemaName === field.schemaName && isSameOrSubclass(objectType.target, resolver.getObjectType?.()),
      );
      const guarded = field.roles !== undefined || (field.middlewares?.length ?? 0) > 0;
      const schemaField = fields[field.schemaName];
      if (!schemaField || resolved || guarded || field.name !== field.schemaName) continue;
      schemaField.resolve = undefined;
    }
  }
  return schema;
}

function isSameOrSubclass(target: Function, candidate: Function | undefined): boolean {
  return candidate !== undefined && (target === candidate || target.prototype instanceof candidate || candidate.prototype instanceof target);
}
