import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
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
  });
  return built;
}
