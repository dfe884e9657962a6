import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { members } from '../../db/schema/index.js';

/** A member's new access token, stored as its digest and its sealed copy. */
export interface IssuedAccessToken {
  accessTokenHash: string;
  accessTokenSealed: string;
  accessTokenIssuedAt: Date;
}

/**
 * Raises the member's session generation (every session, sign-in token and JWT issued before stops
 * answering) and gives it a new access token, in one statement. Answers the new generation, or
 * undefined when the account has no such member.
 */
export async function raiseSessionGeneration(db: Executor, accountId: number, memberId: number, token: IssuedAccessToken): Promise<number | undefined> {
  const [row] = await db
    .update(members)
    .set({ ...token, sessionGeneration: sql`${members.sessionGeneration} + 1`, updatedAt: new Date() })
    .where(and(eq(members.accountId, accountId), eq(members.id, memberId)))
    .returning({ sessionGeneration: members.sessionGeneration });
  return row?.sessionGeneration;
}

/** A new access token for a member whose token was issued before `before`; nothing otherwise. */
export async function renewAccessTokenIssuedBefore(db: Executor, accountId: number, memberId: number, before: Date, token: IssuedAccessToken): Promise<void> {
  await db
    .update(members)
    .set(token)
    .where(and(eq(members.accountId, accountId), eq(members.id, memberId), lt(members.accessTokenIssuedAt, before)));
}
