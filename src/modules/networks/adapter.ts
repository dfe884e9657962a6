import type { Network } from './networks.js';

export interface NetworkCredentials {
  token: string;
  secret?: string;
  uid: string;
}

/** What a network says about the token's owner. */
export interface NetworkProfile {
  uid: string;
  username?: string;
  userUrl?: string;
  email?: string;
  emailVerified?: boolean;
  paidAccount?: boolean;
  followers?: number;
}

export interface RefreshedTokens {
  token: string;
  secret?: string;
  expiresAt?: Date;
}

/** One network's API: who owns a token, and new tokens from a refresh token (`secret`). */
export interface NetworkAdapter {
  network: Network;
  verify(credentials: NetworkCredentials): Promise<NetworkProfile>;
  refresh(credentials: NetworkCredentials): Promise<RefreshedTokens>;
}

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
