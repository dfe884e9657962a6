import type { NonEmptyArray } from 'type-graphql';
import { ConsoleApplicationsResolver } from './applications.resolver.js';
import { ConsoleAuditResolver } from './audit.resolver.js';
import { ConsoleDashboardResolver } from './fans/dashboard.resolver.js';
import { FanSearchResolver } from './fans/fan-search.resolver.js';
import { FanResolver } from './fans/fan.resolver.js';
import { ConsoleRetentionResolver } from './retention.resolver.js';
import { StaffResolver } from './staff.resolver.js';

/**
 * Every resolver class of the console's schema (`/console/graphql`, console.graphql), one line
 * each: a console operation is added by appending its class here. Fields say what they need with
 * `@Authorized<ConsoleRule>('fans.read')` (console/auth.ts) and read the signed-in staff member
 * with `staffCaller(context)` or `@CurrentStaff()`.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- type-graphql's buildSchema takes the classes as Function
export const consoleResolvers: NonEmptyArray<Function> = [
  StaffResolver,
  FanSearchResolver,
  FanResolver,
  ConsoleDashboardResolver,
  ConsoleAuditResolver,
  ConsoleApplicationsResolver,
  ConsoleRetentionResolver,
];
