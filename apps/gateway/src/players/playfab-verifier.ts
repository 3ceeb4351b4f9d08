// auth_config.provider = playfab: the player's PlayFab session ticket, checked with the title's server API
// (Server/AuthenticateSessionTicket, X-SecretKey). PlayFab validates the ticket against the title whose
// secret key is sent, so a ticket of another title is refused by PlayFab itself (an error answer).
import { IdentityRejected, ProviderUnavailable, VerifiedPlayer } from './errors';
import { DEFAULT_PROVIDER_TIMEOUT_MS, clip, fetchJson, isObject, withoutTrailingSlash } from './fetch-json';

export interface PlayFabAuthConfig {
  provider: 'playfab';
  title_id: string;
  secret_key: string;
  base_url?: string;
}

export function playFabBaseUrl(config: PlayFabAuthConfig): string {
  return withoutTrailingSlash(config.base_url ?? `https://${config.title_id}.playfabapi.com`);
}

export async function verifyPlayFabTicket(config: PlayFabAuthConfig, ticket: string, timeoutMs = DEFAULT_PROVIDER_TIMEOUT_MS): Promise<VerifiedPlayer> {
  const { status, body } = await fetchJson('PlayFab', `${playFabBaseUrl(config)}/Server/AuthenticateSessionTicket`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-secretkey': config.secret_key },
    body: JSON.stringify({ SessionTicket: ticket }),
  }, timeoutMs);

  if (status >= 500 || status === 429) throw new ProviderUnavailable(`PlayFab answered HTTP ${status}`);
  if (status !== 200) {
    // ApiErrorWrapper: {code, status, error, errorCode, errorMessage}
    const reason = isObject(body) && typeof body.error === 'string'
      ? `${clip(body.error, 100)}${typeof body.errorMessage === 'string' ? `: ${clip(body.errorMessage)}` : ''}`
      : `HTTP ${status}`;
    if (status === 401 || status === 403) throw new IdentityRejected(`PlayFab refused the title's secret key (${reason})`);
    throw new IdentityRejected(`PlayFab rejected the session ticket (${reason})`);
  }
  const data = isObject(body) && isObject(body.data) ? body.data : undefined;
  const userInfo = data && isObject(data.UserInfo) ? data.UserInfo : undefined;
  if (!data || !userInfo) throw new ProviderUnavailable('PlayFab answered without UserInfo');
  if (data.IsSessionTicketExpired === true) throw new IdentityRejected('The PlayFab session ticket has expired');
  if (typeof userInfo.PlayFabId !== 'string' || userInfo.PlayFabId.length === 0) throw new ProviderUnavailable('PlayFab answered without a PlayFabId');
  return { playerId: userInfo.PlayFabId };
}
