// The signed-in key: kept in sessionStorage (gone when the tab closes), never in localStorage or a cookie.
// The API is this origin's /api, so the console works behind whatever host or proxy serves it.
import { Spawnpoint } from '@spawnpoint/client';

const KEY = 'spawnpoint.console.key';

export interface Session { sp: Spawnpoint; kind: 'server' | 'client' }

export const apiBase = () => `${location.origin}/api`;
export const storedKey = () => sessionStorage.getItem(KEY);
export const forget = () => sessionStorage.removeItem(KEY);

/** Checks the key (the settings read refuses an unknown one: 401) and keeps it for this tab. */
export async function signIn(apiKey: string): Promise<Session> {
  const sp = new Spawnpoint({ baseUrl: apiBase(), apiKey });
  await sp.projects.getSettings();
  sessionStorage.setItem(KEY, apiKey);
  // Client keys are `pfclient_…`, server keys `pf_…` (the interface's key formats).
  return { sp, kind: apiKey.startsWith('pfclient_') ? 'client' : 'server' };
}
