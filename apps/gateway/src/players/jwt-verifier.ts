// auth_config.provider = jwt: the game's own backend (or an identity service) signs a JWT for the player.
// HS256 with a shared `secret`, or RS256/ES256 with keys from `jwks_url` (fetched by jose and cached
// per URL; a token with an unknown `kid` refetches, at most once per cooldown).
import { createRemoteJWKSet, customFetch, errors as joseErrors, JWTPayload, jwtVerify } from 'jose';
import { DEFAULT_PROVIDER_TIMEOUT_MS, clip } from './fetch-json';
import { IdentityRejected, ProviderUnavailable, VerifiedPlayer } from './errors';
import { providerSpan } from './provider-span';

export interface JwtAuthConfig {
  provider: 'jwt';
  jwks_url?: string;
  secret?: string;
  issuer?: string;
  audience?: string;
  player_id_claim?: string;
}

export interface JwtVerifierOptions {
  timeoutMs?: number;
  /** How long fetched JWKS keys are used before they are fetched again. */
  jwksMaxAgeMs?: number;
  /** Clock skew allowed on exp / nbf / iat, in seconds. */
  clockToleranceSeconds?: number;
  /** The clock exp / nbf are checked against (epoch ms). */
  now?: () => number;
}

const HMAC_ALGORITHMS = ['HS256'];
const JWKS_ALGORITHMS = ['RS256', 'ES256'];
const MAX_JWKS_SETS = 1_000;

type KeySet = ReturnType<typeof createRemoteJWKSet>;

export class JwtVerifier {
  private readonly keySets = new Map<string, KeySet>();
  private readonly encoder = new TextEncoder();
  private readonly timeoutMs: number;
  private readonly jwksMaxAgeMs: number;
  private readonly clockTolerance: number;
  private readonly now: () => number;

  constructor(options: JwtVerifierOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
    this.jwksMaxAgeMs = options.jwksMaxAgeMs ?? 10 * 60_000;
    this.clockTolerance = options.clockToleranceSeconds ?? 5;
    this.now = options.now ?? Date.now;
  }

  async verify(config: JwtAuthConfig, token: string): Promise<VerifiedPlayer> {
    const claim = config.player_id_claim ?? 'sub';
    let payload: JWTPayload;
    try {
      const options = { issuer: config.issuer, audience: config.audience, clockTolerance: this.clockTolerance, currentDate: new Date(this.now()) };
      if (config.secret !== undefined) {
        ({ payload } = await jwtVerify(token, this.encoder.encode(config.secret), { ...options, algorithms: HMAC_ALGORITHMS }));
      } else if (config.jwks_url !== undefined) {
        ({ payload } = await jwtVerify(token, this.keySet(config.jwks_url), { ...options, algorithms: JWKS_ALGORITHMS }));
      } else {
        throw new IdentityRejected('auth_config (jwt) has neither secret nor jwks_url');
      }
    } catch (err) {
      throw classify(err);
    }
    const value = payload[claim];
    if ((typeof value !== 'string' || value.length === 0) && typeof value !== 'number') {
      throw new IdentityRejected(`The token has no "${clip(claim, 128)}" claim naming the player`);
    }
    return { playerId: String(value), expiresAt: typeof payload.exp === 'number' ? payload.exp * 1000 : undefined };
  }

  private keySet(url: string): KeySet {
    let set = this.keySets.get(url);
    if (!set) {
      set = createRemoteJWKSet(new URL(url), {
        timeoutDuration: this.timeoutMs, cacheMaxAge: this.jwksMaxAgeMs, cooldownDuration: 30_000,
        // Each fetch of the keys a span of the request that needed them.
        [customFetch]: (jwksUrl, init) => providerSpan('JWKS', 'GET', jwksUrl, () => fetch(jwksUrl, init), (res) => res.status),
      });
      if (this.keySets.size >= MAX_JWKS_SETS) this.keySets.delete(this.keySets.keys().next().value!);
      this.keySets.set(url, set);
    }
    return set;
  }
}

function classify(err: unknown): Error {
  if (err instanceof IdentityRejected || err instanceof ProviderUnavailable) return err;
  if (err instanceof joseErrors.JWTExpired) return new IdentityRejected('The token has expired');
  if (err instanceof joseErrors.JWTClaimValidationFailed) return new IdentityRejected(`The token's "${err.claim}" claim is not accepted (${err.reason})`);
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return new IdentityRejected('The token signature is not valid');
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return new IdentityRejected('The token is signed with an algorithm this project does not accept');
  if (err instanceof joseErrors.JWKSNoMatchingKey) return new IdentityRejected('No key of the JWKS matches the token');
  if (err instanceof joseErrors.JWKSMultipleMatchingKeys) return new IdentityRejected('Several keys of the JWKS match the token (give it a kid)');
  if (err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JWTInvalid) return new IdentityRejected('The token is not a valid JWT');
  if (err instanceof joseErrors.JWKSTimeout) return new ProviderUnavailable('The JWKS URL did not answer in time');
  if (err instanceof joseErrors.JWKSInvalid) return new ProviderUnavailable('The JWKS URL did not return a valid JSON Web Key Set');
  // Fetch failures (refused, DNS, non-200) and anything else jose cannot classify: the keys are not available.
  if (err instanceof joseErrors.JOSEError && err.code !== 'ERR_JOSE_GENERIC') return new IdentityRejected(`The token is not valid (${err.code})`);
  return new ProviderUnavailable('The JWKS URL could not be read');
}
