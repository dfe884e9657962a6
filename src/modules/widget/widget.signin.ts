import type { Database } from '../../db/client.js';
import type { applications } from '../../db/schema/index.js';
import { AppError, invalidParameter } from '../../core/errors.js';
import { checkDecoyPassword } from '../identity/passwords.js';
import type { IdentityServices } from '../members/identity-services.js';
import { findService, type MemberRow } from '../members/members.queries.js';
import * as members from '../members/members.service.js';
import type { MemberProfileInput, VisitInput } from '../members/members.types.js';
import type { ProviderProfile } from './widget.oauth.js';
import type { CheckedMember } from './widget.service.js';

type ApplicationRow = typeof applications.$inferSelect;

/**
 * The hosted flow signs fans in through the members service, as the application itself would
 * through the API: the same identities, throttle, login events and registration domains.
 */
export function flowScope(db: Database, application: ApplicationRow, identity: IdentityServices, browserAddress: string): members.MemberScope {
  return {
    db,
    accountId: application.accountId,
    applicationId: application.id,
    // The flow got the network token from the provider itself, just now: there is nothing to re-check.
    settings: { ...application.settings, networkVerification: 'trust' },
    identity,
    // The hosted pages are called by the fan's browser: its address is the fan's (as its budgets count it).
    clientAddress: identity.budgetAddress(browserAddress),
    browser: true,
  };
}

/** One answer for every failed email sign-in, so the page never tells whether an address is registered. */
export class SignInRefused extends Error {
  constructor(readonly reason: AppError) {
    super(reason.message);
  }

  /** A password too short or too long: worth saying, as it tells nothing about the address. */
  get aboutPassword(): boolean {
    const { code, param } = this.reason.extensions;
    return code === 'INVALID_PARAMETER' && param === 'password';
  }
}

const refusedCodes = new Set(['NO_ACCOUNT', 'WRONG_PASSWORD', 'CONFLICT', 'INVALID_PARAMETER', 'MISSING_PARAMETER']);

function refusal(error: unknown): never {
  if (error instanceof AppError && refusedCodes.has(error.extensions.code)) throw new SignInRefused(error);
  throw error;
}

export async function signInWithEmail(scope: members.MemberScope, email: string, password: string, visit: VisitInput): Promise<MemberRow> {
  const result = await members.login(scope, { credentials: { network: 'email', email, password }, visit, strictSso: false }).catch(async (error: unknown) => {
    if (error instanceof AppError && error.extensions.code === 'NO_ACCOUNT') await checkDecoyPassword(password);
    return refusal(error);
  });
  return result.member;
}

/**
 * Registers by email; an address registered already with this very password signs its member in
 * (the service's own rule), any other clash is refused like a failed sign-in.
 */
export async function registerWithEmail(scope: members.MemberScope, email: string, password: string, profile: MemberProfileInput, visit: VisitInput): Promise<{ member: MemberRow; created: boolean }> {
  return members.registerMember(scope, { credentials: { network: 'email', email, password }, profile, visit }).catch(refusal);
}

/** How an application's on-page flow refuses an email sign-in (`settings.signInErrors`). */
export type SignInErrors = NonNullable<ApplicationRow['settings']['signInErrors']>;
export const signInErrorModes: readonly SignInErrors[] = ['distinct', 'uniform'];

/** A mode as given (any case, trimmed); code 4 for anything else. */
export function parseSignInErrors(value: string, param = 'mode'): SignInErrors {
  const mode = value.trim().toLowerCase();
  if (!signInErrorModes.includes(mode as SignInErrors)) throw invalidParameter(param, 'expected distinct or uniform');
  return mode as SignInErrors;
}

/**
 * The reason behind a refusal as the on-page flow tells it (AE's codes: 13 no such account, 18 wrong
 * password). A registration meeting an address registered with another password is a wrong password.
 * With `uniform`, an unknown address is refused exactly as a wrong password is (the members
 * service's own answer, word for word), after the same password check (the decoy hash).
 */
export function onPageReason(refused: SignInRefused, mode: SignInErrors = 'distinct'): AppError {
  const { code, param } = refused.reason.extensions;
  if (code === 'CONFLICT' && param === 'email') return new AppError('WRONG_PASSWORD', 'This email address is registered with another password.', 'password');
  if (code === 'NO_ACCOUNT' && mode === 'uniform') return new AppError('WRONG_PASSWORD', 'The password is wrong.', 'password');
  return refused.reason;
}

/**
 * A provider's user becomes a member: a known identity signs its member in; a new one is attached to
 * the fan already signed in on this application, or registers a new member.
 */
export async function signInWithNetwork(
  scope: members.MemberScope,
  network: string,
  profile: ProviderProfile,
  signedIn: CheckedMember | undefined,
  visit: VisitInput,
): Promise<{ member: MemberRow; created: boolean }> {
  const credentials = {
    network,
    uid: profile.uid,
    authToken: profile.accessToken,
    authSecret: profile.refreshToken,
    email: profile.email,
  };
  const names: MemberProfileInput = { firstName: profile.firstName, surname: profile.surname };
  if (await findService(scope.db, scope.accountId, network, profile.uid)) {
    return { member: (await members.login(scope, { credentials, visit, strictSso: false })).member, created: false };
  }
  if (signedIn !== undefined) {
    // Minted for under the generation the fan's session was checked under, not the row's now.
    const attached = await members.attachService(scope, signedIn.id, credentials, undefined, visit);
    return { member: { ...attached.member, sessionGeneration: signedIn.sessionGeneration }, created: false };
  }
  return members.registerMember(scope, { credentials, profile: names, visit });
}
