import type { Network } from './networks.js';

export interface NetworkCredentials {
  token: string;
  /** The token secret (OAuth 1.0a) or the refresh token (OAuth 2.0). */
  secret?: string;
  uid: string;
}

/** What a network says about the token's owner. Absent fields are ones the network did not tell. */
export interface NetworkProfile {
  uid: string;
  username?: string;
  userUrl?: string;
  email?: string;
  /** True only when the network itself vouches that the member owns `email`. */
  emailVerified?: boolean;
  paidAccount?: boolean;
  followers?: number;
  avatarUrl?: string;
  firstName?: string;
  surname?: string;
}

export interface RefreshedTokens {
  token: string;
  /** The refresh token to keep: a new one when the network rotates them, the same one otherwise. */
  secret?: string;
  expiresAt?: Date;
}

/** A track or an album on a music network, by that network's id. */
export interface LibraryItem {
  kind: 'track' | 'album';
  id: string;
}

/**
 * One network's API: who owns a token, and new tokens from a refresh token (`secret`). Music
 * networks whose API allows it also save a track or album to the token owner's library.
 */
export interface NetworkAdapter {
  network: Network;
  verify(credentials: NetworkCredentials): Promise<NetworkProfile>;
  refresh(credentials: { token: string; secret?: string; uid: string }): Promise<RefreshedTokens>;
  saveToLibrary?(credentials: NetworkCredentials, item: LibraryItem): Promise<void>;
}

/**
 * - `invalid_credentials`: the network refused the token (or the refresh token); the member must sign in again.
 * - `uid_mismatch`: the token is valid but belongs to someone else.
 * - `unreachable`: no usable answer (connection, timeout, 5xx, rate limit, malformed body); worth a retry.
 * - `retired`: the network no longer exists.
 * - `not_supported`: this gateway cannot do it for this network (no refresh grant, no client configured).
 */
export type NetworkFailure = 'invalid_credentials' | 'uid_mismatch' | 'unreachable' | 'retired' | 'not_supported';

export class NetworkError extends Error {
  constructor(
    readonly network: Network,
    readonly reason: NetworkFailure,
    message: string,
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}
