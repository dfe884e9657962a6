import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema, type ContainerType } from 'type-graphql';
import { recordAudit } from '../modules/audit/audit.js';
import type { Permission } from '../modules/staff/permissions.js';
import { staffAuthChecker } from './auth.js';
import type { ConsoleContext } from './context.js';
import { consoleResolvers } from './resolvers.js';

let built: Promise<GraphQLSchema> | undefined;

const instances = new Map<new () => object, object>();
const container: ContainerType = {
  get(someClass: new () => object) {
    let instance = instances.get(someClass);
    if (!instance) instances.set(someClass, (instance = new someClass()));
    return instance;
  },
};

/**
 * A refusal for want of a permission is an entry of the audit log (`permission.denied`), in a
 * statement of its own: nothing else of the operation ran.
 */
async function recordDenial(context: ConsoleContext, permission: Permission, field: string): Promise<void> {
  const caller = context.caller!;
  await recordAudit(context.database.db, caller.accountId, context.audit, {
    action: 'permission.denied',
    target: { type: 'staff', id: String(caller.staffId) },
    outcome: 'denied',
    details: { permission, field, role: caller.role },
  });
}

/**
 * The console's schema (`/console/graphql`), apart from the public one: only the types its
 * resolvers reach (console/resolvers.ts), checked by the staff member's role (console/auth.ts).
 * Built once and shared by every gateway of the process, like graphql/schema.ts's.
 */
export function getConsoleSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: consoleResolvers,
    authChecker: staffAuthChecker(recordDenial),
    container,
    validate: false,
    nullableByDefault: false,
  });
  return built;
}
