import type { Database, Executor, Transaction } from '../../db/client.js';
import type { ApplicationSettings } from '../../db/schema/index.js';
import { AppError, invalidParameter, missingParameter, notFound, rateLimited } from '../../core/errors.js';
import { accessTokenExpired, digestToken, newAccessToken, sameSecret } from '../identity/access-tokens.js';
import { hashPassword, verifyPassword } from '../identity/passwords.js';
import { normaliseDomain } from '../../lib/domains.js';
import type { IdentityServices } from './identity-services.js';
import type { AddressBudget } from '../identity/login-throttle.js';
import { NetworkError } from '../networks/adapter.js';
import { assertNewPassword, normaliseEmail, readCredentials, readNetwork, verifiedProfile, type Credentials } from './members.credentials.js';
import { changedFields, profileValues, updateChecks } from './members.profile.js';
import { validateAll } from '../../core/user-errors.js';
import { endMemberSessions, renewOldAccessToken } from './members.sessions.js';
import { endMemberLinks } from '../email/email-links.queries.js';
import { giveUsername } from './usernames.js';
import { currentMember } from './members.merge.js';
import * as q from './members.queries.js';
import type { MemberRow, NewMemberRow, ServiceRow } from './members.queries.js';
import type { LoginInput, MemberLookupInput, MemberProfileInput, RegisterMemberInput, ResetPasswordInput, ServiceCredentialsInput, UpdateMemberInput, VisitInput } from './members.types.js';
import { isId } from '../../lib/ids.js';
import { fanTarget, recordScopeAudit, type AuditOrigin } from '../audit/audit.js';
import { geoColumns, locate, type GeoLocation } from '../../lib/geoip.js';
import { forgetTotals } from '../score-windows/score-windows.queries.js';
import { regroupMember } from '../score-windows/score-window-groups.queries.js';

/** Who acts: an application of an account, with the gateway's identity helpers. */
export interface MemberScope {
  db: Database;
  accountId: number;
  applicationId: number;
  settings: ApplicationSettings;
  identity: IdentityServices;
  /** The connection's address as budgets count it (IdentityServices.budgetAddress): sign-in throttling always counts attempts against it. */
  clientAddress?: string;
  /**
   * The connection is the fan's own browser (the hosted sign-in pages), so its address is the
   * fan's; otherwise it is an application's server, which signs in many fans from one address.
   */
  browser?: boolean;
  /** Who acts, for the audit log: the API key (members.envelope.ts scopeOf); absent on the fan's own pages, whose changes are not recorded. */
  audit?: AuditOrigin;
}

export interface MemberResult {
  member: MemberRow;
  created: boolean;
}

/** Registrations and logins through the API, without a website, are recorded under this domain. */
const apiDomain = 'API';

export async function requireMember(db: Executor, accountId: number, id: number, reads?: q.MemberReads, param = 'id'): Promise<q.MemberRowWith> {
  const member = await q.findMember(db, accountId, id, reads);
  if (!member) throw notFound('Member', param);
  return member;
}

/**
 * Creates a member with this identity, or returns the member who has it: for email only when the
 * password matches (otherwise CONFLICT, nothing changed); for a network, with its tokens updated.
 */
export async function registerMember(scope: MemberScope, input: RegisterMemberInput): Promise<MemberResult> {
  const { credentials, profile } = registrationChecks(input);
  const visit = await readVisit(input.visit);
  if (credentials.network === 'email') {
    const existing = await q.findServiceForSignIn(scope.db, scope.accountId, 'email', credentials.uid);
    if (existing) return { member: await existingEmailMember(scope, existing, credentials, visit), created: false };
    assertNewPassword(credentials.password);
  } else {
    const existing = await q.findService(scope.db, scope.accountId, credentials.network, credentials.uid);
    if (existing) return { member: await refreshNetworkIdentity(scope, existing, credentials, input.credentials), created: false };
  }
  const sealed = await sealedCredentials(scope, credentials, () => invalidParameter('authToken', `${credentials.network} refused this token`));
  const token = newAccessToken();
  const created = await scope.db
    .transaction(async (tx) => {
      const member = await q.insertMember(tx, {
        accountId: scope.accountId,
        registeredByApplicationId: scope.applicationId,
        email: credentials.network === 'email' ? credentials.email : emailOf(input.credentials),
        ...profile,
        ...registrationGeo(profile, visit.place),
        importCode: input.importCode?.trim() || null,
        accessTokenHash: digestToken(token),
        accessTokenSealed: scope.identity.cipher.seal(token),
      });
      // Sites that create their own user from the member need a name: one is made from the address.
      if (!member.username) member.username = await giveUsername(tx, scope.accountId, member.id, member.email);
      const service = await q.insertServiceIfAbsent(tx, {
        accountId: scope.accountId,
        memberId: member.id,
        registeredByApplicationId: scope.applicationId,
        ...sealed,
        ...serviceDetails(input.credentials),
        ...registeredUsername(sealed, profile),
      });
      // Another registration of the same identity won the race: undo ours and answer with theirs.
      if (!service) throw new IdentityTaken();
      await recordVisit(tx, scope, member.id, service, 'register', visit);
      return member;
    })
    .catch((error: unknown) => (error instanceof IdentityTaken ? undefined : Promise.reject(error)));
  if (created) return { member: created, created: true };
  return registerMember(scope, input);
}

class IdentityTaken extends Error {}

/**
 * Every problem of a registration's input at once (validateAll), each under its path in the input
 * (["credentials", "email"], ["profile", "birthDate"], ["visit", "domain"]), the credentials' first.
 * `newPassword` checks the password as a new one here too (memberRegister: a sign-up form's every
 * error in one answer); otherwise only a new member's password is, once the address is known new.
 */
export function registrationChecks(input: RegisterMemberInput, options: { newPassword?: boolean } = {}): { credentials: Credentials; profile: Partial<NewMemberRow> } {
  const checks = {
    credentials: () => readCredentials(input.credentials, 'register'),
    password: () => {
      const { network, password } = input.credentials;
      if (options.newPassword && password && network.trim().toLowerCase() === 'email') assertNewPassword(password);
    },
    profile: () => profileValues(input.profile),
    domain: () => {
      const domain = input.visit?.domain?.trim();
      if (domain) normaliseDomain(domain);
    },
  };
  const paths: Record<keyof typeof checks, string[]> = { credentials: ['credentials'], password: ['credentials', 'password'], profile: ['profile'], domain: ['visit', 'domain'] };
  const { credentials, profile } = validateAll(checks, (key) => paths[key]);
  return { credentials, profile };
}

/** Adds an identity to a member, or updates it when the member already has it. */
export async function attachService(
  scope: MemberScope,
  memberId: number,
  input: ServiceCredentialsInput,
  profile?: MemberProfileInput,
  visitInput?: VisitInput,
  importCode?: string | null,
): Promise<MemberResult> {
  const member = await requireMember(scope.db, scope.accountId, memberId, undefined, 'memberId');
  const credentials = readCredentials(input, 'register');
  // The caller's import code, as registration stores it; a new one replaces the member's.
  const code = importCode?.trim();
  const visit = await readVisit(visitInput);
  const values = { ...profileValues(profile), ...(code ? { importCode: code } : {}), ...(visit.place ? geoColumns(visit.place) : {}) };
  const existing = await q.findService(scope.db, scope.accountId, credentials.network, credentials.uid);
  if (existing && existing.memberId !== member.id) {
    throw new AppError('CONFLICT', `This ${credentials.network} identity belongs to another member; merge the members instead.`, 'uid');
  }
  if (credentials.network === 'email') assertNewPassword(credentials.password);
  const sealed = await sealedCredentials(scope, credentials, () => invalidParameter('authToken', `${credentials.network} refused this token`));
  await scope.db.transaction(async (tx) => {
    const service = existing
      ? await q.updateService(tx, scope.accountId, existing.id, { ...sealed, ...serviceDetails(input), valid: true })
      : await q.insertServiceIfAbsent(tx, {
          accountId: scope.accountId,
          memberId: member.id,
          registeredByApplicationId: scope.applicationId,
          ...sealed,
          ...serviceDetails(input),
          ...registeredUsername(sealed, values),
        });
    if (!service) throw new AppError('CONFLICT', `This ${credentials.network} identity was just registered by another member.`, 'uid');
    // A password set here ends the reset and verification links emailed before it.
    if (credentials.network === 'email') await endMemberLinks(tx, scope.accountId, member.id);
    if (Object.keys(values).length) await saveProfile(tx, scope.accountId, member.id, values);
    await recordVisit(tx, scope, member.id, service, 'register', visit);
  });
  return { member: await requireMember(scope.db, scope.accountId, member.id), created: false };
}

/**
 * Signs a member in with email + password or a network identity, and records the login. Each
 * attempt is reserved with the throttle before anything is checked and counts as a failure unless
 * it succeeds: attempts back off per identity and per address, never locking anyone out for good.
 *
 * What is checked and what is minted are of the same moment: the password hash is read with the
 * member's session generation, the login is recorded only while the generation is still that one
 * (the member row locked), and the answer (access token, generation for the JWT) is read under that
 * lock. A reset committed after the hash was read refuses the login (WRONG_PASSWORD, not counted
 * against the throttle: the password was right when checked); one committed after the login ends
 * what the login minted, like any earlier session.
 */
export async function login(scope: MemberScope, input: LoginInput): Promise<MemberResult> {
  const credentials = readCredentials(input.credentials, 'login');
  // Strict single sign-on checks a registration on the given domain: without one it would check nothing.
  if (input.strictSso && !input.visit?.domain?.trim()) {
    throw missingParameter('domain', "The parameter 'domain' is required with strict_sso: the website the member must have registered on.");
  }
  const visit = await readVisit(input.visit);
  const attempt = await reserveSignIn(scope, credentials, visit);
  const { service, sessionGeneration, updates } = await attempt.settle(() => checkedCredentials(scope, credentials));
  // A merge moves its identities to the survivor with the pointer, so the service's member is current.
  const memberId = service.memberId;
  if (input.strictSso && visit.domain !== apiDomain) {
    if (!(await q.hasRegisteredOnDomain(scope.db, scope.accountId, memberId, visit.domain))) {
      throw new AppError('NO_ACCOUNT', `The member has not registered on ${visit.domain}.`, 'domain');
    }
  }
  const now = new Date();
  const member = await scope.db.transaction(async (tx) => {
    // The service first, then the member: the order a reset takes them in, so neither waits on the other's second.
    await q.updateService(tx, scope.accountId, service.id, { ...updates, lastLoginAt: now });
    const current = await q.updateMemberOfGeneration(tx, scope.accountId, memberId, sessionGeneration, { lastLoginAt: now, ...(visit.place ? geoColumns(visit.place) : {}) });
    // Rolls back the service's update too (a rehash of the old password included).
    if (!current) throw passwordChangedMeanwhile(credentials);
    await recordVisit(tx, scope, memberId, service, 'login', visit, now);
    return requireMember(tx, scope.accountId, memberId);
  });
  return { member, created: false };
}

/**
 * A sign-in whose credentials were checked before the member's sessions ended (a password reset,
 * a merge, a revocation): answered as the credentials would be now.
 */
function passwordChangedMeanwhile(credentials: Credentials): AppError {
  if (credentials.network === 'email') return new AppError('WRONG_PASSWORD', 'The password is wrong.', 'password');
  return new AppError('INVALID_TOKEN', "The member's sessions were ended while signing in; sign in again.", 'authToken');
}

/**
 * The identity's service and its member's session generation, read together, when the credentials
 * are right (with what to store of them); else NO_ACCOUNT or WRONG_PASSWORD.
 */
async function checkedCredentials(scope: MemberScope, credentials: Credentials): Promise<{ service: ServiceRow; sessionGeneration: number; updates: Partial<q.NewServiceRow> }> {
  const found = await q.findServiceForSignIn(scope.db, scope.accountId, credentials.network, credentials.uid);
  if (!found) {
    throw new AppError('NO_ACCOUNT', 'No member has this identity.', credentials.network === 'email' ? 'email' : 'uid');
  }
  const { service, sessionGeneration } = found;
  if (credentials.network === 'email') {
    const checked = await verifyPassword(service.passwordHash ?? '', credentials.password);
    if (!checked.ok) throw new AppError('WRONG_PASSWORD', 'The password is wrong.', 'password');
    return { service, sessionGeneration, updates: checked.rehash ? { passwordHash: checked.rehash } : {} };
  }
  const profile = await verifiedProfile(credentials, scope.settings, scope.identity.networks, () => new AppError('WRONG_PASSWORD', `${credentials.network} refused this token.`, 'authToken'));
  const updates = {
    tokenSealed: scope.identity.cipher.seal(credentials.token),
    ...(credentials.secret ? { tokenSecretSealed: scope.identity.cipher.seal(credentials.secret) } : {}),
    ...profileDetails(profile),
    valid: true,
  };
  return { service, sessionGeneration, updates };
}

/** A profile change; the audit entry (when the scope has an origin) names the fields whose values changed, never the values. */
export async function updateMemberProfile(scope: Pick<MemberScope, 'db' | 'accountId' | 'audit'>, id: number, input: UpdateMemberInput): Promise<MemberResult> {
  const member = await requireMember(scope.db, scope.accountId, id);
  const { values, extended: extendedInput } = updateChecks(input);
  await scope.db.transaction(async (tx) => {
    if (values.email && values.email.toLowerCase() !== member.email?.toLowerCase()) {
      // The email identity follows the address, so the member signs in with the new one.
      const [emailService] = (await q.servicesOfMembers(tx, scope.accountId, [member.id])).filter((s) => s.network === 'email');
      if (emailService) {
        const taken = await q.findService(tx, scope.accountId, 'email', values.email.toLowerCase());
        if (taken) throw new AppError('CONFLICT', 'Another member signs in with this email address.', 'email');
        await q.updateService(tx, scope.accountId, emailService.id, { uid: values.email.toLowerCase() });
      }
      // Links emailed to the old address end, even if the member takes it back later.
      await endMemberLinks(tx, scope.accountId, member.id);
    }
    const extended = extendedInput ? { extended: { ...member.extended, ...extendedInput } } : {};
    await saveProfile(tx, scope.accountId, member.id, { ...values, ...extended });
    await recordScopeAudit(tx, scope, { action: 'fan.edit', target: fanTarget(member.id), details: { fields: changedFields(member, { ...values, ...extended }) } });
  });
  return { member: await requireMember(scope.db, scope.accountId, member.id), created: false };
}

/**
 * A new password for the email identity, named by its service id and address (both must match).
 * It ends the member's sessions (members.sessions.ts).
 */
export async function resetPassword(scope: MemberScope, id: number, input: ResetPasswordInput): Promise<MemberResult> {
  const member = await requireMember(scope.db, scope.accountId, id);
  const serviceId = Number(input.serviceId);
  if (!isId(serviceId)) throw invalidParameter('serviceId', 'expected a service id');
  const email = normaliseEmail(input.email);
  assertNewPassword(input.password);
  const service = await q.findServiceById(scope.db, scope.accountId, serviceId);
  if (!service || service.memberId !== member.id || service.network !== 'email') {
    throw notFound('Email service of this member', 'serviceId');
  }
  if (!sameSecret(service.uid, email.toLowerCase())) {
    throw invalidParameter('email', 'the address registered with this service');
  }
  const passwordHash = await hashPassword(input.password);
  // Whoever held the old password may hold a session too: the new password ends them all, and
  // the answer carries the member's new access token and a JWT of the new generation.
  await scope.db.transaction(async (tx) => {
    await q.updateService(tx, scope.accountId, service.id, { passwordHash });
    await endMemberSessions(tx, scope.identity.cipher, scope.accountId, member.id);
    // The raised generation refuses the links emailed before; they are ended too, as every path that sets a password does.
    await endMemberLinks(tx, scope.accountId, member.id);
    await recordScopeAudit(tx, scope, { action: 'fan.edit', target: fanTarget(member.id), details: { fields: ['password'], sessionsEnded: true } });
  });
  return { member: await requireMember(scope.db, scope.accountId, member.id), created: false };
}

/** Profile changes; a new country, gender or birth date also moves the member's kept report groups. */
async function saveProfile(tx: Transaction, accountId: number, memberId: number, values: Partial<NewMemberRow>) {
  const { country, gender, birthDate } = values;
  if (country !== undefined || gender !== undefined || birthDate !== undefined) await regroupMember(tx, accountId, memberId, { country, gender, birthDate });
  await q.updateMember(tx, accountId, memberId, values);
}

/**
 * Deletes a member in the caller's transaction: the member's row locked first, then the kept
 * totals (they have no foreign key to cascade), then the member, what cascades from it, and the
 * shells of members merged into it (members.queries.ts deleteMember). privacy/'s eraseMember runs
 * it with what does not cascade.
 */
export async function removeMember(tx: Transaction, accountId: number, id: number): Promise<boolean> {
  // The member row first, then the totals: the order every transaction takes them in. A member
  // merged away since it was read is not deleted as if it were the survivor.
  currentMember(await q.lockMembers(tx, accountId, [id]), id, 'id');
  await forgetTotals(tx, accountId, id);
  return q.deleteMember(tx, accountId, id);
}

/** New network tokens from the network's refresh grant, stored sealed. */
export async function refreshServiceTokens(scope: MemberScope, id: number, networkName: string): Promise<ServiceRow> {
  const member = await requireMember(scope.db, scope.accountId, id);
  const network = readNetwork(networkName, 'login');
  if (network === 'email') throw invalidParameter('network', 'the email service has no tokens to refresh');
  const [service] = (await q.servicesOfMembers(scope.db, scope.accountId, [member.id])).filter((s) => s.network === network);
  if (!service?.tokenSealed) throw notFound(`The member's ${network} service`, 'network');
  const adapter = scope.identity.networks.get(network);
  if (!adapter) throw invalidParameter('network', `${network} tokens cannot be refreshed`);
  try {
    const refreshed = await adapter.refresh({
      token: scope.identity.cipher.open(service.tokenSealed),
      secret: service.tokenSecretSealed ? scope.identity.cipher.open(service.tokenSecretSealed) : undefined,
      uid: service.uid,
    });
    return q.updateService(scope.db, scope.accountId, service.id, {
      tokenSealed: scope.identity.cipher.seal(refreshed.token),
      ...(refreshed.secret ? { tokenSecretSealed: scope.identity.cipher.seal(refreshed.secret) } : {}),
      expiresAt: refreshed.expiresAt ?? null,
      valid: true,
    });
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    if (error.reason === 'unreachable') throw new AppError('NETWORK_UNAVAILABLE', `${network} did not answer; try again shortly.`, 'network');
    if (error.reason === 'invalid_credentials') {
      // The member revoked access on the network: the link stays, marked invalid, until they sign in again.
      await q.updateService(scope.db, scope.accountId, service.id, { valid: false });
      throw new AppError('INVALID_TOKEN', `${network} refused the stored tokens; the member must sign in with ${network} again.`, 'network');
    }
    throw invalidParameter('network', `${network} tokens cannot be refreshed`);
  }
}

/**
 * Finds a member by exactly one of: id, email, verified email, partner code + id, network + username.
 * By id, `reads` names what the member's statement reads besides the row (see `MemberReads`), and
 * `idParam` the argument the id came in (an opt-in's `memberId`).
 */
export async function lookupMember(db: Executor, accountId: number, lookup: MemberLookupInput, reads?: q.MemberReads, idParam = 'id'): Promise<q.MemberRowWith> {
  if (lookup.id !== undefined && lookup.id !== null && lookup.id !== '0') {
    const id = Number(lookup.id);
    if (!isId(id)) throw invalidParameter(idParam, 'expected a member id');
    return requireMember(db, accountId, id, reads, idParam);
  }
  let found: MemberRow | undefined;
  if (lookup.email) {
    found = await q.findMemberByEmail(db, accountId, lookup.email.trim());
  } else if (lookup.verifiedEmail) {
    [found] = await q.findMembersByVerifiedEmail(db, accountId, lookup.verifiedEmail.trim());
  } else if (lookup.partnerCode || lookup.partnerId) {
    if (!lookup.partnerCode) throw missingParameter('partnerCode', 'partnerID needs partnerCode.');
    if (!lookup.partnerId) throw missingParameter('partnerId', 'partnerCode needs partnerID.');
    const service = await q.findServiceByPartner(db, accountId, lookup.partnerCode.trim(), lookup.partnerId.trim());
    found = service && (await q.findMember(db, accountId, service.memberId));
  } else if (lookup.network || lookup.username) {
    if (!lookup.network) throw missingParameter('network', 'username needs service.');
    if (!lookup.username) throw missingParameter('username', 'service needs username.');
    const service = await q.findServiceByUsername(db, accountId, lookup.network.trim().toLowerCase(), lookup.username.trim());
    found = service && (await q.findMember(db, accountId, service.memberId));
  } else {
    throw missingParameter('id', 'Name the member by id, email, verified_email, partnerCode and partnerID, or service and username.');
  }
  if (!found) throw notFound('Member');
  return found;
}

/** A member access token as the envelope shows it: 32 lowercase hex characters, `_`, the unix time of issue. */
const accessTokenForm = /^[0-9a-f]{32}_\d{1,12}$/;

/**
 * The member whose access token this is, in this account (a merged member's token answers its
 * survivor, as its id does); undefined for anything else, so the caller answers every miss alike.
 */
export async function memberByAccessToken(db: Executor, accountId: number, token: string): Promise<MemberRow | undefined> {
  const trimmed = token.trim();
  if (!accessTokenForm.test(trimmed)) return undefined;
  const row = await q.findMemberByAccessTokenDigest(db, accountId, digestToken(trimmed));
  // An expired token (identity/access-tokens.ts) answers as an unknown one.
  if (!row || accessTokenExpired(row.accessTokenIssuedAt)) return undefined;
  // The row the token was found in, with the session generation read with it: what a session
  // started from the token is minted under (a reset since replaced the token and ends it).
  if (row.mergedIntoId === null) return row;
  return q.findMember(db, accountId, row.id);
}

// ——— helpers ———

/**
 * A registration that meets a registered address is a sign-in attempt with its password, and is
 * throttled as one: otherwise registering would be a way to guess passwords past the back-off.
 * Like a login, it answers the member only as of the session generation read with the hash: a
 * reset committed since refuses it as the new password would.
 */
async function existingEmailMember(
  scope: MemberScope,
  { service, sessionGeneration }: { service: ServiceRow; sessionGeneration: number },
  credentials: Extract<Credentials, { network: 'email' }>,
  visit: Visit,
): Promise<MemberRow> {
  const attempt = await reserveSignIn(scope, credentials, visit);
  const wrongPassword = () => new AppError('CONFLICT', 'This email address is registered already, with another password.', 'email');
  const checked = await attempt.settle(async () => {
    const result = await verifyPassword(service.passwordHash ?? '', credentials.password);
    if (!result.ok) throw wrongPassword();
    return result;
  });
  if (checked.rehash) await q.rehashPassword(scope.db, scope.accountId, service.id, service.passwordHash ?? '', checked.rehash);
  // The answer carries the access token and the generation of the JWT: of the generation checked, or nothing.
  const member = await requireMember(scope.db, scope.accountId, service.memberId);
  if (member.id !== service.memberId || member.sessionGeneration !== sessionGeneration) throw wrongPassword();
  return member;
}

/** A sign-in attempt the throttle admitted. */
interface SignInAttempt {
  /** Runs the credentials check: its success clears the identity's back-off; any failure counts. */
  settle<T>(check: () => Promise<T>): Promise<T>;
}

/** Reserves a sign-in attempt with the throttle, or refuses it (RATE_LIMITED) while the identity or an address backs off. */
async function reserveSignIn(scope: MemberScope, credentials: Credentials, visit: Visit): Promise<SignInAttempt> {
  const throttle = scope.identity.throttle;
  const identity = `${scope.accountId}:${credentials.network}:${credentials.uid}`;
  const addresses = signInAddresses(scope, visit);
  const reservation = await throttle.reserve(identity, addresses);
  if (!reservation.allowed) {
    throw rateLimited(`Too many failed sign-ins; try again in ${reservation.retryAfterSeconds} s.`, reservation.retryAfterSeconds);
  }
  return {
    async settle(check) {
      let result;
      try {
        result = await check();
      } catch (error) {
        await throttle.failed(identity, reservation);
        throw error;
      }
      await throttle.succeeded(identity, addresses);
      return result;
    },
  };
}

/**
 * The address budgets a sign-in draws from, all of the account (another tenant's failures never
 * block this one). The connection always counts: a browser's is the fan's own address; an
 * application server's is shared by all the fans it signs in, so it has a larger budget of its own
 * per application. The `ip` an application names adds the fan's budget; it never replaces the
 * connection's, so changing it escapes nothing.
 */
function signInAddresses(scope: MemberScope, visit: Visit): AddressBudget[] {
  const fan = (address: string): AddressBudget => ({ kind: 'fan', key: `${scope.accountId}:${address}` });
  const budgets: AddressBudget[] = [];
  const connection = scope.clientAddress;
  if (connection) {
    budgets.push(scope.browser ? fan(connection) : { kind: 'server', key: `${scope.accountId}:${scope.applicationId}:${connection}` });
  }
  const named = visit.ip && scope.identity.budgetAddress(visit.ip);
  if (named && !(scope.browser && named === connection)) budgets.push(fan(named));
  return budgets;
}

async function refreshNetworkIdentity(scope: MemberScope, service: ServiceRow, credentials: Extract<Credentials, { token: string }>, input: ServiceCredentialsInput): Promise<MemberRow> {
  // Under `trust` nothing checked that this token is the identity's own (anyone may name a uid):
  // the member's stored tokens, proven when they were stored, stay as they are.
  if (scope.settings.networkVerification !== 'verify') return requireMember(scope.db, scope.accountId, service.memberId);
  const sealed = await sealedCredentials(scope, credentials, () => invalidParameter('authToken', `${credentials.network} refused this token`));
  await q.updateService(scope.db, scope.accountId, service.id, { ...sealed, ...serviceDetails(input), valid: true });
  return requireMember(scope.db, scope.accountId, service.memberId);
}

/** The stored form of credentials: a password hash, or sealed network tokens (checked first when the application asks). */
async function sealedCredentials(scope: MemberScope, credentials: Credentials, onInvalid: () => AppError) {
  if (credentials.network === 'email') {
    return { network: 'email', uid: credentials.uid, passwordHash: await hashPassword(credentials.password) };
  }
  const profile = await verifiedProfile(credentials, scope.settings, scope.identity.networks, onInvalid);
  return {
    network: credentials.network,
    uid: credentials.uid,
    tokenSealed: scope.identity.cipher.seal(credentials.token),
    tokenSecretSealed: credentials.secret ? scope.identity.cipher.seal(credentials.secret) : null,
    ...profileDetails(profile),
  };
}

function profileDetails(profile: Awaited<ReturnType<typeof verifiedProfile>>) {
  if (!profile) return {};
  return {
    ...(profile.username ? { username: profile.username } : {}),
    ...(profile.userUrl ? { userUrl: profile.userUrl } : {}),
    ...(profile.paidAccount !== undefined ? { paidAccount: profile.paidAccount } : {}),
    ...(profile.followers !== undefined ? { followers: profile.followers } : {}),
    ...(profile.email && profile.emailVerified ? { verifiedEmail: profile.email } : {}),
  };
}

function serviceDetails(input: ServiceCredentialsInput) {
  return {
    ...(input.partnerCode?.trim() ? { partnerCode: input.partnerCode.trim() } : {}),
    ...(input.partnerId?.trim() ? { partnerId: input.partnerId.trim() } : {}),
    ...(input.activitySharing !== undefined && input.activitySharing !== null ? { activitySharing: input.activitySharing } : {}),
  };
}

/**
 * A new identity's username: the network's own when it told one (verified profiles), otherwise the
 * `username` the caller registered with, so that member show by `service` + `username` finds them.
 */
function registeredUsername(sealed: Partial<q.NewServiceRow>, profile: Partial<q.NewMemberRow>): { username?: string } {
  if (sealed.username || !profile.username) return {};
  return { username: profile.username };
}

function emailOf(input: ServiceCredentialsInput): string | null {
  return input.email ? normaliseEmail(input.email) : null;
}

interface Visit {
  domain: string;
  ip: string | undefined;
  userAgent: string | undefined;
  /** Where `ip` is (src/lib/geoip.ts); undefined for no, a private or an unknown address. */
  place: GeoLocation | undefined;
}

async function readVisit(input: VisitInput | undefined): Promise<Visit> {
  const domain = input?.domain?.trim();
  const ip = input?.ip?.trim() || undefined;
  return { domain: domain ? normaliseDomain(domain) : apiDomain, ip, userAgent: input?.userAgent?.trim().slice(0, 1000) || undefined, place: await locate(ip) };
}

/**
 * A new member's Geo fields from the registration's address; the profile's country too when the
 * registration names none, so the country filter and the location report count the member.
 */
function registrationGeo(profile: Partial<q.NewMemberRow>, place: GeoLocation | undefined): Partial<q.NewMemberRow> {
  if (!place) return {};
  return { ...geoColumns(place), ...(profile.country ? {} : { country: place.country }) };
}

async function recordVisit(tx: Executor, scope: MemberScope, memberId: number, service: ServiceRow, kind: 'register' | 'login', visit: Visit, at = new Date()): Promise<void> {
  await q.touchDomain(tx, { accountId: scope.accountId, memberId, serviceId: service.id, domain: visit.domain, registered: kind === 'register', at });
  // A sign-in renews an access token past half its lifetime, so an active member's stays live.
  if (kind === 'login') await renewOldAccessToken(tx, scope.identity.cipher, scope.accountId, memberId, at);
  await q.insertLoginEvent(tx, {
    accountId: scope.accountId,
    memberId,
    serviceId: service.id,
    applicationId: scope.applicationId,
    kind,
    network: service.network,
    domain: visit.domain,
    ip: visit.ip,
    userAgent: visit.userAgent,
    createdAt: at,
  });
}
