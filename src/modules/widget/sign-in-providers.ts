import type { SignInNetworkSettings } from '../../db/schema/index.js';
import { invalidParameter } from '../../core/errors.js';
import type { ExternalNetwork } from '../networks/networks.js';

/**
 * Where each network's own sign-in lives: the origins of its OAuth 2.0 / OpenID Connect issuer and
 * authorization page. The hosted flow sends fans from the gateway's origin, shared by every
 * application, to the authorization page under the network's name ("Continue with Google"), so
 * that page must be the network's: an application cannot make the gateway's origin send fans
 * anywhere else.
 */
export const networkSignInOrigins: Readonly<Record<ExternalNetwork, readonly string[]>> = {
  deezer: ['https://connect.deezer.com'],
  facebook: ['https://www.facebook.com'],
  foursquare: ['https://foursquare.com'],
  google: ['https://accounts.google.com'],
  instagram: ['https://api.instagram.com', 'https://www.instagram.com'],
  lastfm: ['https://www.last.fm'],
  soundcloud: ['https://secure.soundcloud.com'],
  spotify: ['https://accounts.spotify.com'],
  tumblr: ['https://www.tumblr.com'],
  twitter: ['https://twitter.com', 'https://x.com'],
  youtube: ['https://accounts.google.com'],
};

/** Where a provider may be: the network's own origins (production), or any origin (local providers in development and tests). */
export interface ProviderPolicy {
  anyOrigin: boolean;
}

function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    // Credentials in a URL are a way to make one origin read as another ("https://accounts.google.com@evil.example").
    if (parsed.username || parsed.password) return undefined;
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Refuses (code 4) an issuer that is not the network's own, before the gateway calls it for its
 * discovery document. Outside production any issuer is accepted, for local providers.
 */
export function checkIssuer(network: ExternalNetwork, issuer: string, policy: ProviderPolicy): void {
  const origin = originOf(issuer);
  if (!origin) throw invalidParameter('issuer', 'expected an http:// or https:// URL without user name or password');
  const own = Object.hasOwn(networkSignInOrigins, network) ? networkSignInOrigins[network] : [];
  if (!policy.anyOrigin && !own.includes(origin)) {
    throw invalidParameter('issuer', own.length ? `expected the network's own issuer, on ${own.join(' or ')}` : 'this network has no sign-in of its own');
  }
}

/**
 * Refuses (code 4) an authorization endpoint that is not on the issuer's origin, whether the
 * application gave it or the issuer's discovery document did: fans are sent there from the
 * gateway's origin. Checked when the settings are saved and again each time they are used, so
 * settings saved before the rule cannot send a fan elsewhere either.
 */
export function checkAuthorizationEndpoint(network: ExternalNetwork, settings: Pick<SignInNetworkSettings, 'issuer' | 'authorizationEndpoint'>, policy: ProviderPolicy): void {
  checkIssuer(network, settings.issuer, policy);
  const origin = originOf(settings.authorizationEndpoint);
  if (!origin || origin !== originOf(settings.issuer)) {
    throw invalidParameter('authorizationEndpoint', `expected a page on the issuer's origin, ${originOf(settings.issuer)}`);
  }
}
