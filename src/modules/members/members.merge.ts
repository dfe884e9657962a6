/**
 * What a merge of members needs on the members' side: the answer to a merge that lost a race, the
 * locked row checked, the retry on deadlock. The merge itself (lifecycle/member-merge.ts) moves rows
 * of several modules.
 */
import { retryTransaction } from '../../db/errors.js';
import { AppError, notFound } from '../../core/errors.js';
import type { MemberRow } from './members.queries.js';

/**
 * The answer to the loser of a race: its member was merged into another one after the request
 * looked it up. Nothing was changed; looking the member up again names the survivor.
 */
export function mergedMeanwhile(id: number, param: string): AppError {
  return new AppError('CONFLICT', `Member ${id} was merged into another member meanwhile; nothing was changed.`, param);
}

/** A member's row as locked by this transaction; gone or merged away meanwhile is an error. */
export function currentMember(locked: Map<number, MemberRow>, id: number, param: string): MemberRow {
  const row = locked.get(id);
  if (!row) throw notFound('Member', param);
  if (row.mergedIntoId !== null) throw mergedMeanwhile(id, param);
  return row;
}

/**
 * Runs a merge transaction again (twice at most) when PostgreSQL chose it as a deadlock victim.
 * Merges lock their members in a fixed order, but a merge also moves rows that concurrent logins
 * and recordings hold; the victim was rolled back whole, so running it again is safe.
 */
export function retryOnDeadlock<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  return retryTransaction(run, { attempts });
}
