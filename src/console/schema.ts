import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { singleInstances } from '../graphql/schema.js';
import { staffAuthChecker } from './auth.js';
import { recordDenial } from './denials.js';
import { consoleResolvers } from './resolvers.js';

let built: Promise<GraphQLSchema> | undefined;

/**
 * The console's schema (`/console/graphql`), apart from the public one: only the types its
 * resolvers reach (console/resolvers.ts), checked by the staff member's role (console/auth.ts).
 * Built once and shared by every gateway of the process, like graphql/schema.ts's.
 */
export function getConsoleSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: consoleResolvers,
    authChecker: staffAuthChecker((context, permission, field) => recordDenial(context.database, context.caller!, context.audit, permission, field)),
    container: singleInstances(),
    validate: false,
    nullableByDefault: false,
  });
  return built;
}
