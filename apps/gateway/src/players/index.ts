export { PlayerIdentity, PLAYER_IDENTITY_OPTIONS, PLAYER_TOKEN_HEADER, type PlayerIdentityOptions } from './player-identity';
export { IdentityRejected, ProviderUnavailable, type VerifiedPlayer } from './errors';
export { JwtVerifier, type JwtAuthConfig } from './jwt-verifier';
export { verifyPlayFabTicket, type PlayFabAuthConfig } from './playfab-verifier';
export { verifySteamTicket, type SteamAuthConfig } from './steam-verifier';
export { TtlCache } from './ttl-cache';
