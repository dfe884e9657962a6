import * as oidc from 'openid-client';
import type { SignInNetworkSettings } from '../../db/schema/index.js';
import type { TokenCipher } from '../identity/token-cipher.js';

/**
 * Social sign-in through OAuth 2.0 / OpenID Connect with openid-client: authorization code flow with
 * PKCE (S256), `state`, and a `nonce` when the scope asks for an id token. Plain-HTTP providers are
 * accepted only outside production (local providers in development and tests).
 */
export interface OAuthOptions {
  cipher: TokenCipher;
  allowHttp: boolean;
}

/** What the browser must bring back to the callback: kept sealed in a short-lived cookie. */
export interface PendingAuthorization {
  state: string;
  verifier: string;
  nonce?: string;
}

export interface ProviderProfile {
  uid: string;
  email?: string;
  emailVerified: boolean;
  firstName?: string;
  surname?: string;
  accessToken: string;
  refreshToken?: string;
}

function configuration(settings: SignInNetworkSettings, options: OAuthOptions): oidc.Configuration {
  const config = new oidc.Configuration(
    {
      issuer: settings.issuer,
      authorization_endpoint: settings.authorizationEndpoint,
      token_endpoint: settings.tokenEndpoint,
      userinfo_endpoint: settings.userinfoEndpoint,
      ...(settings.jwksUri ? { jwks_uri: settings.jwksUri } : {}),
    },
    settings.clientId,
    options.cipher.open(settings.clientSecretSealed),
  );
  if (options.allowHttp) oidc.allowInsecureRequests(config);
  return config;
}

const wantsIdToken = (settings: SignInNetworkSettings) => settings.scope.split(/\s+/).includes('openid');

export async function authorizationRequest(settings: SignInNetworkSettings, options: OAuthOptions, redirectUri: string) {
  const pending: PendingAuthorization = {
    state: oidc.randomState(),
    verifier: oidc.randomPKCECodeVerifier(),
    ...(wantsIdToken(settings) ? { nonce: oidc.randomNonce() } : {}),
  };
  const url = oidc.buildAuthorizationUrl(configuration(settings, options), {
    redirect_uri: redirectUri,
    scope: settings.scope,
    state: pending.state,
    code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
    ...(pending.nonce ? { nonce: pending.nonce } : {}),
  });
  return { url: url.toString(), pending };
}

/**
 * Redeems the code at the token endpoint (checking state, PKCE and, with OpenID Connect, the id
 * token's signature, audience and nonce) and reads the user's profile. The id token's `sub` is the
 * identity when there is one; plain OAuth 2.0 providers name the user by `sub` or `id` in user info.
 */
export async function completeAuthorization(settings: SignInNetworkSettings, options: OAuthOptions, callbackUrl: URL, pending: PendingAuthorization): Promise<ProviderProfile> {
  const config = configuration(settings, options);
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: pending.verifier,
    expectedState: pending.state,
    ...(pending.nonce ? { expectedNonce: pending.nonce, idTokenExpected: true } : {}),
  });
  const claims = tokens.claims();
  const response = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(settings.userinfoEndpoint), 'GET');
  const info = (await response.json()) as Record<string, unknown>;
  // `id` names the user when it is text or a number: null, a boolean or an object would be one uid for every such user.
  const infoUid = typeof info.sub === 'string' ? info.sub : typeof info.id === 'string' || typeof info.id === 'number' ? String(info.id) : undefined;
  const uid = claims?.sub ?? infoUid;
  if (!uid || (claims && infoUid && infoUid !== claims.sub)) throw new Error('The provider named no user, or two different ones.');
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
  return {
    uid,
    email: text(info.email ?? claims?.email),
    emailVerified: (info.email_verified ?? claims?.email_verified) === true,
    firstName: text(info.given_name ?? claims?.given_name),
    surname: text(info.family_name ?? claims?.family_name),
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
  };
}

/** Reads a provider's endpoints from its OpenID Connect discovery document. */
export async function discoverProvider(issuer: string, allowHttp: boolean) {
  const config = await oidc.discovery(new URL(issuer), 'discovery', undefined, undefined, allowHttp ? { execute: [oidc.allowInsecureRequests] } : undefined);
  return config.serverMetadata();
}
