import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { AppError, invalidParameter } from '../core/errors.js';
import { rolePermissions, type StaffRole } from '../modules/staff/permissions.js';
import { addStaff, inviteLink, listStaff, removeStaff, requireSecondFactor, setRole } from '../modules/staff/staff.service.js';
import { changePassword, confirmSecondFactor, startSecondFactorSetup, type RequestOrigin } from '../modules/staff/staff.signin.js';
import { staffCaller, type ConsoleRule } from './auth.js';
import type { ConsoleContext, StaffCaller } from './context.js';
import { StaffInviteType, StaffMembershipType, StaffRoleEnum, StaffType, TotpSetupType } from './staff.types.js';

/** The console's own staff operations: who is signed in, the account's staff, the second factor, the password. */
@Resolver()
export class StaffResolver {
  @Query(() => StaffType, { nullable: true, description: 'The signed-in staff member; null when signed out.' })
  viewer(@Ctx() context: ConsoleContext): StaffType | null {
    return context.caller ? viewerOf(context.caller) : null;
  }

  @Authorized<ConsoleRule>('staff.manage')
  @Query(() => [StaffMembershipType], { description: "The account's staff (staff.manage)." })
  async staff(@Ctx() context: ConsoleContext): Promise<StaffMembershipType[]> {
    return membershipsOf(context, staffCaller(context).accountId);
  }

  @Authorized<ConsoleRule>('staff.manage')
  @Mutation(() => StaffInviteType, { description: 'Adds a staff member to the account and answers their one-time sign-in link (staff.manage).' })
  async inviteStaff(@Ctx() context: ConsoleContext, @Arg('email', () => String) email: string, @Arg('role', () => StaffRoleEnum) role: StaffRole): Promise<StaffInviteType> {
    const caller = staffCaller(context);
    if (!context.baseUrl) throw new AppError('INVALID_PARAMETER', 'The Host header names no host this gateway serves its pages on (PUBLIC_URL or ALLOWED_HOSTS).', 'host');
    const added = await addStaff(context.database.db, caller.accountId, { email, role }, context.audit);
    const staff = (await membershipsOf(context, caller.accountId)).find((member) => member.id === added.staffId)!;
    return { staff, link: added.inviteToken ? inviteLink(context.baseUrl, added.inviteToken) : null, expiresAt: added.inviteExpiresAt ?? null };
  }

  @Authorized<ConsoleRule>('staff.manage')
  @Mutation(() => StaffMembershipType, { description: "Changes a staff member's role and ends their sessions in the account (staff.manage). The last owner keeps the role." })
  async setStaffRole(@Ctx() context: ConsoleContext, @Arg('staffId', () => ID) staffId: string, @Arg('role', () => StaffRoleEnum) role: StaffRole): Promise<StaffMembershipType> {
    const { accountId } = staffCaller(context);
    const id = staffIdOf(staffId);
    await setRole(context.database.db, accountId, id, role, context.audit);
    return (await membershipsOf(context, accountId)).find((member) => member.id === id)!;
  }

  @Authorized<ConsoleRule>('staff.manage')
  @Mutation(() => Boolean, { description: 'Removes a staff member from the account, ending their sessions there (staff.manage). The last owner cannot be removed.' })
  async removeStaff(@Ctx() context: ConsoleContext, @Arg('staffId', () => ID) staffId: string): Promise<boolean> {
    await removeStaff(context.database.db, staffCaller(context).accountId, staffIdOf(staffId), context.audit);
    return true;
  }

  @Authorized<ConsoleRule>('settings.manage')
  @Mutation(() => Boolean, { description: 'Whether every staff member of the account must sign in with a second factor (settings.manage). Answers the new setting.' })
  async requireTotp(@Ctx() context: ConsoleContext, @Arg('required', () => Boolean) required: boolean): Promise<boolean> {
    return requireSecondFactor(context.database.db, staffCaller(context).accountId, required, context.audit);
  }

  @Authorized<ConsoleRule>('secondFactorSetup')
  @Mutation(() => TotpSetupType, { description: 'A new TOTP secret for your authenticator app; it replaces your second factor once confirmTotp accepts a code of it.' })
  async startTotpSetup(@Ctx() context: ConsoleContext): Promise<TotpSetupType> {
    return startSecondFactorSetup(context.database.db, context.identity, staffCaller(context));
  }

  @Authorized<ConsoleRule>('secondFactorSetup')
  @Mutation(() => StaffType, { description: 'Confirms the secret of startTotpSetup with a code from the app: it becomes your second factor, and this session has proved it.' })
  async confirmTotp(@Ctx() context: ConsoleContext, @Arg('code', () => String) code: string): Promise<StaffType> {
    const caller = staffCaller(context);
    await confirmSecondFactor(context.database.db, context.identity, caller, code, originOf(context));
    return viewerOf({ ...caller, secondFactorEnabled: true, owesSecondFactor: false });
  }

  @Authorized()
  @Mutation(() => StaffType, { description: 'Changes your password, given the current one; your other sessions, in every account, end.' })
  async changePassword(@Ctx() context: ConsoleContext, @Arg('current', () => String) current: string, @Arg('next', () => String) next: string): Promise<StaffType> {
    const caller = staffCaller(context);
    await changePassword(context.database.db, context.identity, caller, { current, next }, originOf(context));
    return viewerOf(caller);
  }
}

export function viewerOf(caller: StaffCaller): StaffType {
  return {
    id: caller.staffId,
    email: caller.email,
    role: caller.role,
    permissions: [...rolePermissions[caller.role]],
    account: { id: caller.accountId, name: caller.accountName },
    secondFactorEnabled: caller.secondFactorEnabled,
    secondFactorRequired: caller.secondFactorRequired,
    secondFactorOwed: caller.owesSecondFactor,
  };
}

async function membershipsOf(context: ConsoleContext, accountId: number): Promise<StaffMembershipType[]> {
  const rows = await listStaff(context.database.db, accountId);
  return rows.map((row) => ({ id: row.staffId, email: row.email, role: row.role, addedAt: row.addedAt, passwordSet: row.passwordSet, secondFactorEnabled: row.secondFactorEnabled }));
}

function staffIdOf(value: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > 2_147_483_647) throw invalidParameter('staffId', 'the id of a staff member of the account');
  return Number(value);
}

function originOf(context: ConsoleContext): RequestOrigin {
  return { ip: context.clientAddress ?? context.audit.ip ?? 'unknown', userAgent: context.audit.userAgent, requestId: context.requestId };
}
