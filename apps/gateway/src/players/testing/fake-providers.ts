// Local stand-ins for the Steam Web API and PlayFab's server API (node:http on 127.0.0.1, port 0), answering
// with the documented response shapes; and a JWKS endpoint. For the verifiers' int tests and the e2e suite.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  url: string;
  /** Requests seen, in order. */
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

export async function startLocalServer(handle: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void): Promise<LocalServer> {
  const requests: LocalServer['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Accepts connections and never answers (for timeouts). */
export const startSilentServer = () => startLocalServer(() => { /* never answer */ });

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};

export interface FakeSteamOptions {
  webApiKey: string;
  /** ticket → the player it was issued to and the app it was issued for. */
  tickets: Record<string, { steamid: string; appid: string | number }>;
}

/** GET /ISteamUserAuth/AuthenticateUserTicket/v1/?key=&appid=&ticket= */
export function startFakeSteam(options: FakeSteamOptions): Promise<LocalServer> {
  return startLocalServer((req, _body, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' || url.pathname !== '/ISteamUserAuth/AuthenticateUserTicket/v1/') {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not Found</h1></body></html>');
      return;
    }
    if (url.searchParams.get('key') !== options.webApiKey) {
      res.writeHead(403, { 'content-type': 'text/html' }).end('<html><head><title>Forbidden</title></head><body><h1>Forbidden</h1>Access is denied. Retrying will not help. Please verify your <pre>key=</pre> parameter.</body></html>');
      return;
    }
    const appid = url.searchParams.get('appid');
    const ticket = url.searchParams.get('ticket');
    if (!appid || !ticket) return json(res, 400, { response: { error: { errorcode: 3, errordesc: 'Invalid parameter' } } });
    const issued = options.tickets[ticket];
    if (!issued || String(issued.appid) !== appid) return json(res, 200, { response: { error: { errorcode: 101, errordesc: 'Invalid ticket' } } });
    json(res, 200, { response: { params: { result: 'OK', steamid: issued.steamid, ownersteamid: issued.steamid, vacbanned: false, publisherbanned: false } } });
  });
}

export interface FakePlayFabOptions {
  titleId: string;
  secretKey: string;
  /** ticket → the player and the title that issued it. */
  tickets: Record<string, { playFabId: string; titleId: string; expired?: boolean }>;
}

/** POST /Server/AuthenticateSessionTicket (X-SecretKey, {SessionTicket}) */
export function startFakePlayFab(options: FakePlayFabOptions): Promise<LocalServer> {
  return startLocalServer((req, body, res) => {
    if (req.method !== 'POST' || req.url !== '/Server/AuthenticateSessionTicket') {
      return json(res, 404, { code: 404, status: 'NotFound', error: 'APINotFound', errorCode: 1000, errorMessage: 'API not found' });
    }
    if (req.headers['x-secretkey'] !== options.secretKey) {
      return json(res, 401, { code: 401, status: 'Unauthorized', error: 'NotAuthenticated', errorCode: 1074, errorMessage: 'This API method requires a valid secret key' });
    }
    let ticket: unknown;
    try { ticket = (JSON.parse(body) as { SessionTicket?: unknown }).SessionTicket; } catch { ticket = undefined; }
    if (typeof ticket !== 'string') {
      return json(res, 400, { code: 400, status: 'BadRequest', error: 'InvalidParams', errorCode: 1000, errorMessage: 'Invalid input parameters', errorDetails: { SessionTicket: ['The SessionTicket field is required.'] } });
    }
    const issued = options.tickets[ticket];
    // The ticket is checked against the title of the secret key: another title's ticket is invalid here.
    if (!issued || issued.titleId !== options.titleId) {
      return json(res, 400, { code: 400, status: 'BadRequest', error: 'InvalidSessionTicket', errorCode: 1100, errorMessage: 'Invalid session ticket' });
    }
    json(res, 200, {
      code: 200, status: 'OK',
      data: {
        UserInfo: {
          PlayFabId: issued.playFabId, Created: '2026-01-01T00:00:00Z',
          TitleInfo: { Origination: 'CustomId', Created: '2026-01-01T00:00:00Z', isBanned: false, TitlePlayerAccount: { Id: 'ABCDEF0123456789', Type: 'title_player_account' } },
        },
        IsSessionTicketExpired: issued.expired ?? false,
      },
    });
  });
}

/** GET / → the JSON Web Key Set given (it can be changed between requests). */
export function startJwksServer(jwks: { keys: unknown[] }): Promise<LocalServer & { jwks: { keys: unknown[] } }> {
  const state = { jwks };
  return startLocalServer((_req, _body, res) => json(res, 200, state.jwks)).then((s) => Object.assign(s, state));
}
