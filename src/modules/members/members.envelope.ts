import type { ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { invalidParameter } from '../../core/errors.js';
import { isId } from '../../lib/ids.js';
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
  };
}

export function memberId(value: string, param = 'id'): number {
  const id = Number(value);
  if (!isId(id)) throw invalidParameter(param, 'expected a member id');
  return id;
}

export async function envelope(context: Context, caller: ApplicationCaller, result: MemberResult): Promise<MemberEnvelope> {
  const jwt = await context.identity.signingKeys.sign({
    accountId: caller.accountId,
    applicationId: caller.applicationId,
    memberId: result.member.id,
    sessionGeneration: result.member.sessionGeneration,
  });
  return { member: toMember(result.member), jwt, created: result.created };
}
