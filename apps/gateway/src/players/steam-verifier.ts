// auth_config.provider = steam: a Steam Web API auth ticket (hex, from GetAuthTicketForWebApi /
// GetAuthSessionTicket), checked with ISteamUserAuth/AuthenticateUserTicket for the project's app id.
// Steam answers HTTP 200 both ways: {response: {params: {result: "OK", steamid, ...}}} or
// {response: {error: {errorcode, errordesc}}} (invalid, expired, or another app's ticket).
import { IdentityRejected, ProviderUnavailable, VerifiedPlayer } from './errors';
import { DEFAULT_PROVIDER_TIMEOUT_MS, clip, fetchJson, isObject, withoutTrailingSlash } from './fetch-json';

export interface SteamAuthConfig {
  provider: 'steam';
  app_id: string | number;
  web_api_key: string;
  base_url?: string;
}

export function steamTicketUrl(config: SteamAuthConfig, ticket: string): string {
  const query = new URLSearchParams({ key: config.web_api_key, appid: String(config.app_id), ticket });
  return `${withoutTrailingSlash(config.base_url ?? 'https://api.steampowered.com')}/ISteamUserAuth/AuthenticateUserTicket/v1/?${query}`;
}

export async function verifySteamTicket(config: SteamAuthConfig, ticket: string, timeoutMs = DEFAULT_PROVIDER_TIMEOUT_MS): Promise<VerifiedPlayer> {
  const { status, body } = await fetchJson('Steam', steamTicketUrl(config, ticket), { method: 'GET', headers: { accept: 'application/json' } }, timeoutMs);
  if (status >= 500 || status === 429) throw new ProviderUnavailable(`Steam answered HTTP ${status}`);
  // A wrong web_api_key is a 403 (an HTML page); a malformed request a 400.
  if (status === 401 || status === 403) throw new IdentityRejected(`Steam refused the project's web_api_key or app_id (HTTP ${status})`);
  const response = isObject(body) && isObject(body.response) ? body.response : undefined;
  if (status !== 200 || !response) {
    if (status >= 400) throw new IdentityRejected(`Steam rejected the ticket (HTTP ${status})`);
    throw new ProviderUnavailable('Steam answered with something other than the expected JSON');
  }
  if (isObject(response.error)) {
    const { errorcode, errordesc } = response.error;
    throw new IdentityRejected(`Steam rejected the ticket (${clip(errorcode, 20)}: ${clip(errordesc ?? 'no description')})`);
  }
  const params = isObject(response.params) ? response.params : undefined;
  if (!params) throw new ProviderUnavailable('Steam answered without params');
  if (params.result !== 'OK') throw new IdentityRejected(`Steam did not accept the ticket (result ${clip(params.result, 40)})`);
  if (typeof params.steamid !== 'string' || !/^\d{1,20}$/.test(params.steamid)) throw new ProviderUnavailable('Steam answered without a steamid');
  return { playerId: params.steamid };
}
