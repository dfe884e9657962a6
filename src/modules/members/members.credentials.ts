import { z } from 'zod';
import type { ApplicationSettings } from '../../db/schema/index.js';
import { AppError, invalidParameter, missingParameter } from '../../core/errors.js';
import { validateAll } from '../../core/user-errors.js';
import { passwordProblem } from '../identity/passwords.js';
import { NetworkError, type NetworkAdapter, type NetworkProfile } from '../networks/adapter.js';
import { parseNetwork, type Network } from '../networks/networks.js';
import type { ServiceCredentialsInput } from './members.types.js';

/**
 * Credentials as the interface sends them, checked and normalised. Errors name the fields of
 * ServiceCredentialsInput (network, email, password, authToken, uid); REST reports them by its
 * own parameter names (rest/error-params.ts).
 */
export type Credentials = { network: 'email'; uid: string; email: string; password: string } | { network: Exclude<Network, 'email'>; uid: string; token: string; secret?: string };

const emailSchema = z.email();

export function normaliseEmail(value: string, param = 'email'): string {
  const email = value.trim();
  if (!emailSchema.safeParse(email).success) throw invalidParameter(param, 'expected an email address');
  return email;
}

/** A network identifier of the given set, or a clear error naming the `network` argument (REST's `service`). */
export function readNetwork(value: string, set: 'register' | 'login'): Network {
  const network = parseNetwork(value, set);
  if (!network) throw invalidParameter('network', `expected a network identifier such as email, spotify or youtube (unknown: ${value})`);
  return network;
}

/**
 * Longest partner code and partner id (REST partner, sourceuid) an identity keeps: both are in an
 * index, whose rows PostgreSQL caps near 2.7 KB, so a longer value must be refused here as code 4
 * rather than by the database as an internal error.
 */
export const maxPartnerReferenceLength = 255;

function partnerReference(field: 'partnerCode' | 'partnerId', value: string | undefined | null): void {
  const trimmed = value?.trim();
  if (trimmed && trimmed.length > maxPartnerReferenceLength) throw invalidParameter(field, `at most ${maxPartnerReferenceLength} characters`);
}

/**
 * Every problem of the credentials at once (validateAll), each under its field's path, the first
 * being the one a check that stopped at the first problem would report (REST and the old mutations
 * answer it): partner references, the network, then what that network requires, then the address's
 * form.
 */
export function readCredentials(input: ServiceCredentialsInput, set: 'register' | 'login'): Credentials {
  // Which fields are required follows from the network; an unknown one is reported by its own check.
  const named = parseNetwork(input.network, set);
  const emailChecks = {
    emailGiven: () => {
      if (!input.email) throw missingParameter('email', 'Email sign-in needs email and password.');
    },
    password: () => {
      if (!input.password) throw missingParameter('password', 'Email sign-in needs email and password.');
    },
    email: () => (input.email ? normaliseEmail(input.email) : ''),
  };
  const networkChecks = {
    authToken: () => {
      if (!input.authToken) throw missingParameter('authToken', `Signing in with ${named} needs authtoken and uid.`);
    },
    uid: () => {
      if (!input.uid) throw missingParameter('uid', `Signing in with ${named} needs authtoken and uid.`);
    },
  };
  const checks: Record<string, () => unknown> = {
    partnerCode: () => partnerReference('partnerCode', input.partnerCode),
    partnerId: () => partnerReference('partnerId', input.partnerId),
    network: () => readNetwork(input.network, set),
    ...(named === 'email' ? emailChecks : named ? networkChecks : {}),
  };
  const checked = validateAll(checks, (key) => [key === 'emailGiven' ? 'email' : key]);
  const network = checked.network as Network;
  if (network === 'email') {
    const email = checked.email as string;
    return { network, uid: email.toLowerCase(), email, password: input.password ?? '' };
  }
  return { network, uid: (input.uid ?? '').trim(), token: input.authToken ?? '', secret: input.authSecret ?? undefined };
}

/** A new password must be acceptable; an existing one is only compared. */
export function assertNewPassword(password: string): void {
  const problem = passwordProblem(password);
  // The problem is a sentence of its own ("A password needs at least 8 characters."), the whole message.
  if (problem) throw new AppError('INVALID_PARAMETER', problem, 'password');
}

/**
 * With `networkVerification: verify`, a network token is checked with its network before it is
 * trusted; by default the calling application vouches for it.
 */
export async function verifiedProfile(
  credentials: Extract<Credentials, { token: string }>,
  settings: ApplicationSettings,
  adapters: Map<Network, NetworkAdapter>,
  onInvalid: () => AppError,
): Promise<NetworkProfile | undefined> {
  if (settings.networkVerification !== 'verify') return undefined;
  const adapter = adapters.get(credentials.network);
  try {
    if (!adapter) throw new NetworkError(credentials.network, 'retired', `${credentials.network} can no longer be verified.`);
    return await adapter.verify({ token: credentials.token, secret: credentials.secret, uid: credentials.uid });
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    if (error.reason === 'unreachable') {
      throw new AppError('NETWORK_UNAVAILABLE', `${credentials.network} did not answer; try again shortly.`, 'network');
    }
    if (error.reason === 'uid_mismatch') throw invalidParameter('uid', `the token belongs to another ${credentials.network} user`);
    if (error.reason === 'retired' || error.reason === 'not_supported') {
      throw invalidParameter('network', `${credentials.network} tokens cannot be verified`);
    }
    throw onInvalid();
  }
}
