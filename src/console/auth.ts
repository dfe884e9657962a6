import { createParameterDecorator, type AuthChecker } from 'type-graphql';
import { AppError } from '../core/errors.js';
import { roleAllows, type Permission } from '../modules/staff/permissions.js';
import type { ConsoleContext, StaffCaller } from './context.js';

/**
 * What a console field asks of its caller, with `@Authorized(...)`:
 * - `@Authorized()`: any signed-in staff member whose session is complete (a second factor proved
 *   where one is owed);
 * - `@Authorized('fans.erase')`, any permission of modules/staff/permissions.ts: a role that holds it;
 * - `@Authorized('secondFactorSetup')`: also a session that still owes its second factor (the fields
 *   that let a staff member set one up).
 * A field without `@Authorized` answers anyone, signed in or not (only `viewer`, which is null when signed out).
 */
export type ConsoleRule = Permission | 'secondFactorSetup';

export const signInRequired = () => new AppError('STAFF_SESSION_REQUIRED', 'Sign in to the console first (your session may have ended).');

const secondFactorOwed = (caller: StaffCaller) =>
  new AppError(
    'STAFF_SESSION_REQUIRED',
    caller.secondFactorEnabled ? 'Sign in again with a code from your authenticator app.' : 'The account requires a second factor: set one up (startTotpSetup, confirmTotp) before anything else.',
    'code',
  );

/** The refusal of a role without the permission: it names both, and nothing was done. */
export function forbidden(caller: StaffCaller, permission: Permission): AppError {
  return new AppError('FORBIDDEN', `Your role (${caller.role}) does not allow this: it needs the ${permission} permission.`, null);
}

/**
 * The staff member a request may act as for these rules (ConsoleRule), or the precise refusal: no
 * session, a second factor owed, or a permission the role lacks, which is reported to `onDenied`
 * (the audit log's `permission.denied`) before it is thrown. Shared by the GraphQL fields and the
 * console's plain routes (console/route-kit.ts).
 */
export async function allowedStaff(caller: StaffCaller | undefined, rules: readonly ConsoleRule[], onDenied: (caller: StaffCaller, permission: Permission) => Promise<void>): Promise<StaffCaller> {
  if (!caller) throw signInRequired();
  if (caller.owesSecondFactor && !rules.includes('secondFactorSetup')) throw secondFactorOwed(caller);
  for (const rule of rules) {
    if (rule === 'secondFactorSetup' || roleAllows(caller.role, rule)) continue;
    await onDenied(caller, rule);
    throw forbidden(caller, rule);
  }
  return caller;
}

/**
 * Checks each `@Authorized` console field before it runs, throwing the precise refusal rather than
 * returning false (allowedStaff); a denial is reported to `onDenied` with the field's name.
 */
export function staffAuthChecker(onDenied: (context: ConsoleContext, permission: Permission, field: string) => Promise<void> = async () => {}): AuthChecker<ConsoleContext, ConsoleRule> {
  return async ({ context, info }, rules) => {
    await allowedStaff(context.caller, rules, (_caller, permission) => onDenied(context, permission, `${info.parentType.name}.${info.fieldName}`));
    return true;
  };
}

/** The signed-in staff member, for code that runs after `@Authorized` (which refused anyone else). */
export function staffCaller(context: ConsoleContext): StaffCaller {
  if (!context.caller) throw signInRequired();
  return context.caller;
}

/** A resolver's parameter: the signed-in staff member (`@CurrentStaff() caller: StaffCaller`). */
export function CurrentStaff() {
  return createParameterDecorator<ConsoleContext>(({ context }) => staffCaller(context));
}
