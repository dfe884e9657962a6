import type { ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { invalidParameter } from '../../core/errors.js';
import { isId } from '../../lib/ids.js';
import { auditOriginOf } from '../audit/audit.js';
import { toMember } from './members.mapping.js';
import type { MemberResult, MemberScope } from './members.service.js';
import type { MemberEnvelope } from './members.types.js';

/**
 * What the resolvers acting on members share (members.resolver.ts, and lifecycle/'s registration
 * and merges): the caller's scope, a member id argument read, the envelope a member is answered in.
 */

export function scopeOf(context: Context, caller: ApplicationCaller): MemberScope {
  return {
    db: context.database.db,
    accountId: caller.accountId,
    applicationId: caller.applicationId,
    settings: caller.settings,
    identity: context.identity,
    clientAddress: context.clientAddress,
    audit: auditOriginOf(context, caller),
  };
}

export function memberId(value: string, param = 'id'): number {
  const id = Number(value);
  if (!isId(id)) throw invalidParameter(param, 'expected a member id');
  return id;
}

/**
 * The member's envelope: its JWT carries the session generation of the row the service answered,
 * and the member's fields that need the whole row (the access token among them) read that same
 * row, not a later one: a login answers the token and generation it checked the password under
 * (members.service.ts, `login`), never those a reset committed meanwhile.
 */
export async function envelope(context: Context, caller: ApplicationCaller, result: MemberResult): Promise<MemberEnvelope> {
  context.loaders.members.rows.clear(result.member.id).prime(result.member.id, result.member);
  const jwt = await context.identity.signingKeys.sign({
    accountId: caller.accountId,
    applicationId: caller.applicationId,
    memberId: result.member.id,
    sessionGeneration: result.member.sessionGeneration,
  });
  return { member: toMember(result.member), jwt, created: result.created };
}
