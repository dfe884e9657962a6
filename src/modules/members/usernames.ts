import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { members } from '../../db/schema/index.js';
import { holdTransactionLock } from '../../db/transaction-lock.js';
import { executeRows } from '../../db/rows.js';

/** The longest name taken from an address, before a `-<id>` that may follow it. */
const maxBaseLength = 30;

/**
 * The username a member registered without one is given: the address's local part, accents
 * dropped, lower case, only `a-z 0-9 . _ -` kept (what WordPress and most sites accept), at most
 * 30 characters; `member` when nothing is left. The migration that named earlier members
 * (drizzle/*_member_usernames.sql) applies the same rule in SQL.
 */
export function usernameBase(email: string | null | undefined): string {
  const local = (email ?? '').split('@')[0];
  const kept = local
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9._-]/g, '')
    .slice(0, maxBaseLength);
  return kept || 'member';
}

/**
 * Names a new member who has no username, in the transaction that creates it: the base when no
 * other member of the account has it (in any case), else `<base>-<member id>`, which no
 * registration can have taken since ids are unique. Registrations of one base take turns on a
 * transaction lock, so two at once cannot both see the base free. The name is stored, so it stays
 * the same when the address changes later.
 */
export async function giveUsername(tx: Executor, accountId: number, memberId: number, email: string | null | undefined): Promise<string> {
  const base = usernameBase(email);
  await holdTransactionLock(tx, `username:${accountId}:${base}`);
  const [row] = await executeRows<{ username: string }>(
    tx,
    sql`
    update ${members} set username = case
      when exists (select 1 from ${members} other
                   where other.account_id = ${accountId} and lower(other.username) = ${base} and other.id <> ${memberId})
      then ${base} || '-' || ${memberId}::text
      else ${base} end
    where ${members.accountId} = ${accountId} and ${members.id} = ${memberId} and ${members.username} is null
    returning ${members.username} as username`,
  );
  return row?.username ?? base;
}
