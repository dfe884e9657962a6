import { GraphQLDateTime } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { staffRoles, type StaffRole } from '../modules/staff/permissions.js';

/** The roles as GraphQL values, spelled as everywhere else (the CLI, the database): `owner`, `admin`, `support`, `analyst`. */
export const StaffRoleEnum = Object.fromEntries(staffRoles.map((role) => [role, role])) as { [R in StaffRole]: R };
registerEnumType(StaffRoleEnum, {
  name: 'StaffRole',
  description: 'What a staff member may do in an account; each role holds everything of the roles below it (analyst < support < admin < owner).',
});

@ObjectType('ConsoleAccount', { description: 'The account a console session works in.' })
export class ConsoleAccountType {
  @Field(() => ID) id!: number;
  @Field(() => String) name!: string;
}

@ObjectType('Staff', { description: 'The signed-in staff member, in the account of their session.' })
export class StaffType {
  @Field(() => ID) id!: number;
  @Field(() => String) email!: string;
  @Field(() => StaffRoleEnum) role!: StaffRole;
  @Field(() => [String], { description: 'The permissions of the role (modules/staff/permissions.ts): the console shows what they allow; the server checks them on every operation.' })
  permissions!: string[];
  @Field(() => ConsoleAccountType) account!: ConsoleAccountType;
  @Field(() => Boolean, { description: 'The staff member has a second factor (TOTP).' }) secondFactorEnabled!: boolean;
  @Field(() => Boolean, { description: "The account requires a second factor of its staff (an owner's setting)." }) secondFactorRequired!: boolean;
  @Field(() => Boolean, { description: 'This session must still prove (or set up) a second factor: until then only viewer, startTotpSetup and confirmTotp answer.' })
  secondFactorOwed!: boolean;
}

@ObjectType('StaffMembership', { description: "A staff member of the account, as the account's owners see them." })
export class StaffMembershipType {
  @Field(() => ID, { description: "The staff member's id (setStaffRole, removeStaff)." }) id!: number;
  @Field(() => String) email!: string;
  @Field(() => StaffRoleEnum) role!: StaffRole;
  @Field(() => GraphQLDateTime) addedAt!: Date;
  @Field(() => Boolean, { description: 'False until the staff member has chosen a password (their sign-in link unused).' }) passwordSet!: boolean;
  @Field(() => Boolean) secondFactorEnabled!: boolean;
}

@ObjectType('StaffInvite', { description: 'A staff member just added, and the one-time link they choose their password with.' })
export class StaffInviteType {
  @Field(() => StaffMembershipType) staff!: StaffMembershipType;
  @Field(() => String, {
    nullable: true,
    description:
      '`<gateway>/console/invite#<token>`, single use, valid seven days: give it to them. Null when they already sign in to another account with their own password (they choose this account when signing in).',
  })
  link!: string | null;
  @Field(() => GraphQLDateTime, { nullable: true }) expiresAt!: Date | null;
}

@ObjectType('TotpSetup', { description: "A new second factor for the staff member's authenticator app, confirmed by confirmTotp with a code from it." })
export class TotpSetupType {
  @Field(() => String, { description: 'The secret in base32, to type in when the QR code cannot be scanned.' }) secret!: string;
  @Field(() => String, { description: 'The otpauth:// URI the QR code holds.' }) uri!: string;
  @Field(() => String, { description: 'The QR code as an SVG image in a data: URL.' }) qrSvgDataUrl!: string;
}
