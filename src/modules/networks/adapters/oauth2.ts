import { NetworkError, type NetworkFailure, type RefreshedTokens } from '../adapter.js';
import { at, callNetwork, count, type Classifier } from '../http.js';
import type { NamedNetwork } from '../declaration.js';
import type { RefreshGrant } from './define.js';

/**
 * Token endpoint answers (RFC 6749 §5.2): `invalid_grant` means the refresh token was revoked or
 * expired; `invalid_client` and `unauthorized_client` mean the gateway's own client was refused,
 * which is no fault of the member's link; other refusals count against the credentials.
 */
export const tokenEndpointFailure: Classifier = (status, body): NetworkFailure | undefined => {
  const error = at(body, 'error');
  if (error === 'invalid_grant') return 'invalid_credentials';
  if (error === 'invalid_client' || error === 'unauthorized_client') return 'not_supported';
  return status === 400 || status === 401 || status === 403 ? 'invalid_credentials' : undefined;
};

/**
 * The OAuth 2.0 refresh grant with `secret` as the refresh token. The gateway's client goes in an
 * HTTP Basic header or in the form, as the network documents; without a configured client the
 * grant is still tried (the network then answers `invalid_client`, reported as not supported).
 */
export function refreshTokenGrant(clientAuth: 'basic' | 'form'): RefreshGrant {
  return async ({ network, tokenUrl, client, credentials }) => {
    if (!credentials.secret) {
      throw new NetworkError(network.id, 'not_supported', `No ${network.name} refresh token is stored for this identity.`);
    }
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: credentials.secret });
    const headers: Record<string, string> = {};
    if (client && clientAuth === 'basic') {
      headers.authorization = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
    } else if (client) {
      form.set('client_id', client.clientId);
      form.set('client_secret', client.clientSecret);
    }
    const body = await callNetwork(network, tokenUrl, { method: 'POST', headers, form, classify: tokenEndpointFailure });
    return issuedTokens(network, body, credentials.secret);
  };
}

/** A token endpoint's answer: the new access token, the refresh token to keep, and when the token expires. */
export function issuedTokens(network: NamedNetwork, body: Record<string, unknown>, previousSecret: string | undefined): RefreshedTokens {
  if (typeof body.access_token !== 'string' || body.access_token === '') {
    throw new NetworkError(network.id, 'unreachable', `${network.name} answered the refresh without an access token.`);
  }
  const expiresIn = count(body.expires_in);
  return {
    token: body.access_token,
    // Some networks rotate refresh tokens (each is single-use); the others keep the one we have.
    secret: typeof body.refresh_token === 'string' && body.refresh_token !== '' ? body.refresh_token : previousSecret,
    expiresAt: expiresIn === undefined ? undefined : new Date(Date.now() + expiresIn * 1000),
  };
}
