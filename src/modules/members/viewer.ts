import type { Caller, Context } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { validateAll, withUserErrors, type InputPaths } from '../../core/user-errors.js';
import { isId } from '../../lib/ids.js';
import { updateChecks } from './members.profile.js';
import { findMember, lockMembers, type MemberRow } from './members.queries.js';
import { updateMemberProfile } from './members.service.js';
import { endMemberSessions, sessionEnded } from './members.sessions.js';
import type { UpdateMemberInput } from './members.types.js';
import { deleteSessionOfMember, sessionsOfMember, type ViewerSessionRow } from './viewer.queries.js';
import type { SessionStart, ViewerSession, ViewerUpdateInput } from './viewer.types.js';

/**
 * What a member JWT may do besides reading `viewer` (docs/members.md, "Member JWT"): the fan's
 * own profile, opt-ins to the lists the application opens to fans (segments/viewer-optins.ts),
 * and the fan's own sessions. Every operation starts with requireViewer, the session check
 * `viewer` makes; none takes another member's id, and none answers a token or a secret.
 */

export type MemberCaller = Extract<Caller, { kind: 'member' }>;

/**
 * The member of the request's JWT, checked as `viewer` checks it: a token issued before the
 * member's sessions ended (another generation), or for a member merged away since (the survivor's
 * row), is over (INVALID_TOKEN, HTTP 401). An API key is refused: it names members itself
 * (memberUpdate, memberOptIn).
 */
export async function requireViewer(context: Context): Promise<{ caller: MemberCaller; row: MemberRow }> {
  const { caller } = context;
  if (caller.kind !== 'member') throw new AppError('WRONG_APPLICATION', "The viewer's operations take a member token; an API key names the member instead.", 'apiKey');
  const row = await findMember(context.database.db, caller.accountId, caller.memberId);
  if (!row || row.id !== caller.memberId || row.sessionGeneration !== caller.sessionGeneration) throw sessionEnded();
  return { caller, row };
}

/** Where updateMemberProfile's parameters (REST's names, as its checks name them) sit in viewerUpdate's input. */
const updatePaths: InputPaths = {
  params: Object.fromEntries(
    (
      [
        ['firstname', 'firstName'],
        ['surname', 'surname'],
        ['username', 'username'],
        ['birthdate', 'birthDate'],
        ['city', 'city'],
        ['country', 'country'],
        ['region', 'state'],
        ['postcode', 'postCode'],
        ['address', 'address'],
        ['addressline2', 'addressLine2'],
        ['homephone', 'homePhone'],
        ['mobilephone', 'mobilePhone'],
        ['website', 'website'],
        ['bio', 'bio'],
      ] as const
    ).map(([param, field]) => [param, ['input', field]]),
  ),
  fallback: ['input'],
};

/**
 * viewerUpdate: the fan's own profile through the members service's updateMemberProfile, so its
 * rules are memberUpdate's. Only the fields of ViewerUpdateInput reach it (no email, no custom
 * fields). Not written to the audit log: the change is the fan's own, as on the hosted pages.
 */
export async function updateViewer(context: Context, input: ViewerUpdateInput) {
  const { caller } = await requireViewer(context);
  const { email: _email, extended: _extended, ...profile } = input as UpdateMemberInput;
  return withUserErrors(async () => {
    // The profile's checks first, all of them, under ["input", …]: updateMemberProfile's own
    // problems are placed relative to the profile (["birthDate"]), not to this argument.
    validateAll({ input: () => updateChecks(profile) }, () => ['input']);
    const { member } = await updateMemberProfile({ db: context.database.db, accountId: caller.accountId }, caller.memberId, profile);
    context.loaders.members.rows.clear(member.id).prime(member.id, member);
    return member;
  }, updatePaths);
}

export function toViewerSession(row: ViewerSessionRow): ViewerSession {
  return {
    id: row.id,
    applicationId: row.applicationId,
    applicationName: row.applicationName,
    beganWith: row.beganWith as SessionStart,
    startedAt: row.createdAt,
    expiresAt: row.expiresAt,
    live: row.live,
  };
}

/** viewerSessions: the fan's widget sessions, newest first (the latest 100). */
export async function viewerSessions(context: Context): Promise<ViewerSession[]> {
  const { caller, row } = await requireViewer(context);
  return (await sessionsOfMember(context.database.db, caller.accountId, caller.memberId, row.sessionGeneration)).map(toViewerSession);
}

/**
 * viewerEndSessions: one widget session by id (deleted, as the widget's sign-out deletes it), or
 * with no id every session, the JWT in use among them: the member's session generation is raised
 * (members.sessions.ts, as revokeMemberSessions does), so every widget session, unspent sign-in
 * token and member JWT issued before stops answering, and the member gets a new access token.
 */
export async function endViewerSessions(context: Context, id: string | null | undefined) {
  const { caller, row } = await requireViewer(context);
  const db = context.database.db;
  const before = (await sessionsOfMember(db, caller.accountId, caller.memberId, row.sessionGeneration)).map(toViewerSession);
  return withUserErrors(
    async () => {
      if (id !== undefined && id !== null) {
        const sessionId = Number(id);
        if (!isId(sessionId) || !(await deleteSessionOfMember(db, caller.accountId, caller.memberId, sessionId))) throw notFound('Session', 'id');
        return { endedSessions: before.filter((session) => session.id === sessionId && session.live), signedOut: false };
      }
      await db.transaction(async (tx) => {
        // Locked first, as revokeMemberSessions locks it: a merge or a revocation racing this either
        // sees the raised generation, or ended the token's sessions first (then so is this request's).
        const locked = (await lockMembers(tx, caller.accountId, [caller.memberId])).get(caller.memberId);
        if (!locked || locked.mergedIntoId !== null || locked.sessionGeneration !== caller.sessionGeneration) throw sessionEnded();
        await endMemberSessions(tx, context.identity.cipher, caller.accountId, caller.memberId);
      });
      return { endedSessions: before.filter((session) => session.live), signedOut: true };
    },
    { params: { id: ['id'] } },
  );
}
