import { and, asc, eq, gt, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { accounts, staffInvites, staffRoles, staffSessions, staffUsers } from '../../db/schema/index.js';
import type { StaffRole } from './permissions.js';

// ——— staff members (global) ———

export async function findStaffByEmail(db: Executor, email: string) {
  const [row] = await db
    .select()
    .from(staffUsers)
    .where(sql`lower(${staffUsers.email}) = lower(${email})`);
  return row;
}

export async function findStaffById(db: Executor, staffId: number) {
  const [row] = await db.select().from(staffUsers).where(eq(staffUsers.id, staffId));
  return row;
}

/** The staff member with this email, made when new; the address is kept as first given. */
export async function ensureStaffUser(db: Executor, email: string) {
  await db.insert(staffUsers).values({ email }).onConflictDoNothing();
  return await findStaffByEmail(db, email);
}

export async function lockStaffUser(db: Executor, staffId: number) {
  await db.select({ id: staffUsers.id }).from(staffUsers).where(eq(staffUsers.id, staffId)).for('update');
}

export async function setStaffPassword(db: Executor, staffId: number, passwordHash: string) {
  await db.update(staffUsers).set({ passwordHash }).where(eq(staffUsers.id, staffId));
}

export async function setPendingTotp(db: Executor, staffId: number, sealed: string) {
  await db.update(staffUsers).set({ totpPendingSealed: sealed }).where(eq(staffUsers.id, staffId));
}

/**
 * Takes a TOTP code's time step: true when it is later than every code accepted before (so a code,
 * once used, is refused even by a concurrent sign-in), false when one at or after it was taken.
 * With `confirm`, the pending secret it was checked against becomes the staff member's secret.
 */
export async function takeTotpStep(db: Executor, staffId: number, step: number, confirm?: { sealed: string }): Promise<boolean> {
  const rows = await db
    .update(staffUsers)
    .set({ totpLastStep: step, ...(confirm ? { totpSecretSealed: confirm.sealed, totpPendingSealed: null } : {}) })
    .where(and(eq(staffUsers.id, staffId), or(isNull(staffUsers.totpLastStep), lt(staffUsers.totpLastStep, step))))
    .returning({ id: staffUsers.id });
  return rows.length === 1;
}

// ——— roles (per account) ———

/**
 * Every account a staff member belongs to, with the role and the account's name, in account order.
 * Across accounts by design: signing in finds the staff member by email, then their accounts.
 */
export async function membershipsOfStaff(db: Executor, staffId: number) {
  return db
    .select({ accountId: staffRoles.accountId, role: staffRoles.role, accountName: accounts.name, totpRequired: accounts.staffTotpRequired })
    .from(staffRoles)
    .innerJoin(accounts, eq(accounts.id, staffRoles.accountId))
    .where(eq(staffRoles.staffId, staffId))
    .orderBy(asc(staffRoles.accountId));
}

export async function findMembership(db: Executor, accountId: number, staffId: number) {
  const [row] = await db
    .select({ staffId: staffRoles.staffId, role: staffRoles.role, email: staffUsers.email, addedAt: staffRoles.addedAt })
    .from(staffRoles)
    .innerJoin(staffUsers, eq(staffUsers.id, staffRoles.staffId))
    .where(and(eq(staffRoles.accountId, accountId), eq(staffRoles.staffId, staffId)));
  return row;
}

export async function findMembershipByEmail(db: Executor, accountId: number, email: string) {
  const [row] = await db
    .select({ staffId: staffRoles.staffId, role: staffRoles.role, email: staffUsers.email })
    .from(staffRoles)
    .innerJoin(staffUsers, eq(staffUsers.id, staffRoles.staffId))
    .where(and(eq(staffRoles.accountId, accountId), sql`lower(${staffUsers.email}) = lower(${email})`));
  return row;
}

export async function listMemberships(db: Executor, accountId: number) {
  return db
    .select({
      staffId: staffRoles.staffId,
      email: staffUsers.email,
      role: staffRoles.role,
      addedAt: staffRoles.addedAt,
      passwordSet: sql<boolean>`${staffUsers.passwordHash} is not null`,
      secondFactorEnabled: sql<boolean>`${staffUsers.totpSecretSealed} is not null`,
    })
    .from(staffRoles)
    .innerJoin(staffUsers, eq(staffUsers.id, staffRoles.staffId))
    .where(eq(staffRoles.accountId, accountId))
    .orderBy(sql`lower(${staffUsers.email})`, asc(staffRoles.staffId));
}

/** Adds the role; false when the staff member already has one in the account (nothing changed). */
export async function insertMembership(db: Executor, accountId: number, staffId: number, role: StaffRole): Promise<boolean> {
  const rows = await db.insert(staffRoles).values({ accountId, staffId, role }).onConflictDoNothing().returning({ staffId: staffRoles.staffId });
  return rows.length === 1;
}

export async function updateRole(db: Executor, accountId: number, staffId: number, role: StaffRole) {
  const [row] = await db
    .update(staffRoles)
    .set({ role })
    .where(and(eq(staffRoles.accountId, accountId), eq(staffRoles.staffId, staffId)))
    .returning();
  return row;
}

/** Deletes the role; the staff member's sessions and links of the account go with it (foreign keys). */
export async function deleteMembership(db: Executor, accountId: number, staffId: number): Promise<boolean> {
  const rows = await db
    .delete(staffRoles)
    .where(and(eq(staffRoles.accountId, accountId), eq(staffRoles.staffId, staffId)))
    .returning({ staffId: staffRoles.staffId });
  return rows.length === 1;
}

/** The account's owners, locked until the transaction ends, so two owners cannot both step down at once. */
export async function lockOwners(db: Executor, accountId: number): Promise<number[]> {
  const rows = await db
    .select({ staffId: staffRoles.staffId })
    .from(staffRoles)
    .where(and(eq(staffRoles.accountId, accountId), eq(staffRoles.role, 'owner')))
    .for('update');
  return rows.map((row) => row.staffId);
}

export async function setTotpRequired(db: Executor, accountId: number, required: boolean) {
  await db.update(accounts).set({ staffTotpRequired: required }).where(eq(accounts.id, accountId));
}

// ——— sessions (per account) ———

export async function insertSession(
  db: Executor,
  values: { accountId: number; staffId: number; tokenHash: string; now: Date; expiresAt: Date; secondFactorAt: Date | null; ip?: string; userAgent?: string },
) {
  const [row] = await db
    .insert(staffSessions)
    .values({
      accountId: values.accountId,
      staffId: values.staffId,
      tokenHash: values.tokenHash,
      createdAt: values.now,
      lastSeenAt: values.now,
      expiresAt: values.expiresAt,
      secondFactorAt: values.secondFactorAt,
      ip: values.ip,
      userAgent: values.userAgent,
    })
    .returning({ id: staffSessions.id });
  return row;
}

/** The live session of this token (not revoked, within its absolute and idle limits), with who holds it. */
export async function findLiveSession(db: Executor, accountId: number, tokenHash: string, now: Date, idleSince: Date) {
  const [row] = await db
    .select({
      sessionId: staffSessions.id,
      staffId: staffSessions.staffId,
      lastSeenAt: staffSessions.lastSeenAt,
      secondFactorAt: staffSessions.secondFactorAt,
      role: staffRoles.role,
      email: staffUsers.email,
      secondFactorEnabled: sql<boolean>`${staffUsers.totpSecretSealed} is not null`,
      totpRequired: accounts.staffTotpRequired,
      accountName: accounts.name,
    })
    .from(staffSessions)
    .innerJoin(staffRoles, and(eq(staffRoles.accountId, staffSessions.accountId), eq(staffRoles.staffId, staffSessions.staffId)))
    .innerJoin(staffUsers, eq(staffUsers.id, staffSessions.staffId))
    .innerJoin(accounts, eq(accounts.id, staffSessions.accountId))
    .where(
      and(
        eq(staffSessions.accountId, accountId),
        eq(staffSessions.tokenHash, tokenHash),
        isNull(staffSessions.revokedAt),
        gt(staffSessions.expiresAt, now),
        gt(staffSessions.lastSeenAt, idleSince),
        isNull(staffUsers.disabledAt),
      ),
    );
  return row;
}

export async function touchSession(db: Executor, accountId: number, sessionId: number, now: Date) {
  await db
    .update(staffSessions)
    .set({ lastSeenAt: now })
    .where(and(eq(staffSessions.accountId, accountId), eq(staffSessions.id, sessionId)));
}

export async function markSecondFactor(db: Executor, accountId: number, sessionId: number, now: Date) {
  await db
    .update(staffSessions)
    .set({ secondFactorAt: now })
    .where(and(eq(staffSessions.accountId, accountId), eq(staffSessions.id, sessionId)));
}

export async function revokeSession(db: Executor, accountId: number, tokenHash: string, now: Date) {
  await db
    .update(staffSessions)
    .set({ revokedAt: now })
    .where(and(eq(staffSessions.accountId, accountId), eq(staffSessions.tokenHash, tokenHash), isNull(staffSessions.revokedAt)));
}

/** Ends the staff member's sessions in the account, but for `exceptSessionId` when given. */
export async function revokeStaffSessions(db: Executor, accountId: number, staffId: number, now: Date, exceptSessionId?: number) {
  await db
    .update(staffSessions)
    .set({ revokedAt: now })
    .where(
      and(eq(staffSessions.accountId, accountId), eq(staffSessions.staffId, staffId), isNull(staffSessions.revokedAt), exceptSessionId === undefined ? undefined : ne(staffSessions.id, exceptSessionId)),
    );
}

// ——— one-time sign-in links (per account) ———

export async function insertInvite(db: Executor, values: { accountId: number; staffId: number; tokenHash: string; expiresAt: Date }) {
  await db.insert(staffInvites).values(values);
}

/** Spends the link: true once, while it is unused and unexpired. */
export async function spendInvite(db: Executor, accountId: number, tokenHash: string, now: Date) {
  const [row] = await db
    .update(staffInvites)
    .set({ usedAt: now })
    .where(and(eq(staffInvites.accountId, accountId), eq(staffInvites.tokenHash, tokenHash), isNull(staffInvites.usedAt), gt(staffInvites.expiresAt, now)))
    .returning({ staffId: staffInvites.staffId });
  return row;
}
