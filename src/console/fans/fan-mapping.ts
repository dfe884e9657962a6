import type { MemberRow } from '../../modules/members/members.queries.js';
import { roleAllows, type StaffRole } from '../../modules/staff/permissions.js';
import type { FanScope } from '../../modules/fans/fan-actions.js';
import { staffCaller } from '../auth.js';
import type { ConsoleContext } from '../context.js';
import type { FanAbilitiesType, FanType } from './fans.types.js';

/** The heading of a fan: their name, else their email, else their id. */
export function displayNameOf(member: Pick<MemberRow, 'id' | 'firstName' | 'surname' | 'email' | 'username'>): string {
  const name = [member.firstName, member.surname].filter(Boolean).join(' ');
  return name || member.email || member.username || `Fan #${member.id}`;
}

export function toFan(member: MemberRow): FanType {
  return {
    id: member.id,
    displayName: displayNameOf(member),
    email: member.email,
    verifiedEmail: member.verifiedEmail,
    emailVerifiedAt: member.emailVerifiedAt,
    firstName: member.firstName,
    surname: member.surname,
    username: member.username,
    gender: member.gender,
    birthDate: member.birthDate,
    bio: member.bio,
    avatarUrl: member.avatarUrl,
    address: member.address,
    addressLine2: member.addressLine2,
    city: member.city,
    state: member.state,
    country: member.country,
    postCode: member.postCode,
    homePhone: member.homePhone,
    mobilePhone: member.mobilePhone,
    website: member.website,
    extended: member.extended ?? {},
    createdAt: member.createdAt,
    updatedAt: member.updatedAt,
    lastLoginAt: member.lastLoginAt,
    sessionGeneration: member.sessionGeneration,
  };
}

/** What the viewer's role allows on a fan (the console's buttons; each operation checks again). */
export function fanAbilities(role: StaffRole): FanAbilitiesType {
  return {
    edit: roleAllows(role, 'fans.edit'),
    merge: roleAllows(role, 'fans.merge'),
    export: roleAllows(role, 'fans.export'),
    erase: roleAllows(role, 'fans.erase'),
    sessions: roleAllows(role, 'fans.sessions'),
    reset: roleAllows(role, 'fans.reset'),
  };
}

/** The scope the fans module's changes run in: the viewer's account, the request's audit origin. */
export function fanScopeOf(context: ConsoleContext): FanScope {
  return { db: context.database.db, accountId: staffCaller(context).accountId, identity: context.identity, origin: context.audit };
}
