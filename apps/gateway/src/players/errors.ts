// How a verifier says no. The PlayerIdentity turns these into the HTTP error body.

/** The token is not valid for this project's provider (bad signature, expired, unknown ticket, wrong app...): 401. */
export class IdentityRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityRejected';
  }
}

/** The provider could not be asked (unreachable, timed out, 5xx, unreadable answer): 503, the token may be fine. */
export class ProviderUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderUnavailable';
  }
}

/** A verified token: whose it is and until when that may be remembered (epoch ms; undefined: no limit of its own). */
export interface VerifiedPlayer {
  playerId: string;
  expiresAt?: number;
}
