import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Executor } from '../../db/client.js';
import { deleteStaleEmailLinks, findEmailLink, insertEmailLink, readSessionGeneration, type EmailLinkRow, type LinkPurpose } from './email-links.queries.js';

/**
 * How long an emailed link works. A reset link is a password for an hour: short, as such links
 * are everywhere. A verification link changes little and may wait in an inbox over a weekend.
 */
export const linkLifetimesMs: Record<LinkPurpose, number> = {
  reset: 60 * 60_000,
  verify: 72 * 3600_000,
};

/** The lifetime as a message says it ("1 hour", "72 hours"). */
export function lifetimeText(purpose: LinkPurpose): string {
  const hours = linkLifetimesMs[purpose] / 3600_000;
  return hours === 1 ? '1 hour' : `${hours} hours`;
}

const digest = (secret: string) => createHash('sha256').update(secret).digest();

/** `<id>.<43 base64url characters>`: the row's id, then 256 random bits. */
const linkToken = /^(\d{1,10})\.([A-Za-z0-9_-]{43})$/;

export interface LinkOwner {
  accountId: number;
  applicationId: number;
  memberId: number;
  email: string;
}

/**
 * A new link for the member; answers the token to put in the URL. Only the secret's digest is
 * stored, so the table never holds a usable link. The link is bound to the address it goes to and
 * to the member's session generation, read just before: a reset, a revocation or a merge committed
 * later ends it (openEmailLink, spendEmailLink), and one committed between the read and the insert
 * leaves it bound to a generation already gone, so it never opens. (Read first, not inside the
 * insert: a distributed engine routes an INSERT only when its values are plain values.)
 */
export async function issueEmailLink(db: Executor, owner: LinkOwner, purpose: LinkPurpose, now = new Date()): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  const sessionGeneration = (await readSessionGeneration(db, owner.accountId, owner.memberId)) ?? null;
  await deleteStaleEmailLinks(db, owner.accountId, new Date(now.getTime() - 24 * 3600_000));
  const row = await insertEmailLink(db, {
    ...owner,
    purpose,
    secretHash: digest(secret).toString('hex'),
    sessionGeneration,
    expiresAt: new Date(now.getTime() + linkLifetimesMs[purpose]),
    createdAt: now,
  });
  return `${row.id}.${secret}`;
}

/**
 * What opening a link finds: the link, or why it does nothing. `ended`: the member's sessions were
 * ended since it was issued (a reset, a revocation, a merge), or its password or address changed.
 */
export type OpenedLink = { status: 'valid'; link: EmailLinkRow } | { status: 'invalid' | 'expired' | 'used' | 'ended' };

/**
 * Reads a link of this application and purpose without spending it. The row is found by its id,
 * then the secret's digest is compared in constant time; anything that does not match (malformed,
 * unknown, another application's, another purpose) is `invalid`, told apart from `expired` and
 * `used` only for the holder of the right secret.
 */
export async function openEmailLink(db: Executor, app: { accountId: number; applicationId: number }, purpose: LinkPurpose, token: string | undefined, now = new Date()): Promise<OpenedLink> {
  const match = linkToken.exec(token ?? '');
  // An id past the column's range names no row (and must not reach the database as one).
  if (!match || Number(match[1]) > 2_147_483_647) return { status: 'invalid' };
  const link = await findEmailLink(db, app.accountId, Number(match[1]));
  const stored = Buffer.from(link?.secretHash ?? '', 'hex');
  const given = digest(match[2]);
  const same = stored.length === given.length && timingSafeEqual(stored, given);
  if (!link || !same || link.applicationId !== app.applicationId || link.purpose !== purpose) return { status: 'invalid' };
  if (link.usedAt) return { status: 'used' };
  if (link.expiresAt <= now) return { status: 'expired' };
  // A row without a generation was ended (endMemberLinks) or issued before links carried one.
  if (link.sessionGeneration === null || link.sessionGeneration !== link.memberGeneration) return { status: 'ended' };
  return { status: 'valid', link };
}
