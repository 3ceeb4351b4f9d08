// The built package as a user installs it: copied alone into an empty directory (no workspace, no
// node_modules), its CommonJS and ES module entries load, and its declarations type-check a consumer on
// their own: the contract types are inlined, nothing points back into this repository.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PKG = path.join(__dirname);
const TSC = path.join(__dirname, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');

describe('the published @spawnpoint/client package', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sp-client-pkg-'));
    const target = path.join(dir, 'node_modules', '@spawnpoint', 'client');
    cpSync(path.join(PKG, 'dist'), path.join(target, 'dist'), { recursive: true });
    cpSync(path.join(PKG, 'package.json'), path.join(target, 'package.json'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('points nowhere outside itself: no @spawnpoint import in code or declarations', () => {
    for (const f of readdirSync(path.join(PKG, 'dist'))) {
      const text = readFileSync(path.join(PKG, 'dist', f), 'utf8');
      expect({ f, imports: text.match(/from ['"](@spawnpoint\/[^'"]+|\.\.\/[^'"]+)['"]|require\(['"]@spawnpoint[^)]*\)/g) }).toEqual({ f, imports: null });
    }
  });

  it('loads as CommonJS and as an ES module', () => {
    const cjs = execFileSync(process.execPath, ['-e', "const c = require('@spawnpoint/client'); console.log(typeof c.Spawnpoint, typeof c.ValidationError)"], { cwd: dir, encoding: 'utf8' });
    expect(cjs.trim()).toBe('function function');
    const esm = execFileSync(process.execPath, ['--input-type=module', '-e', "import { Spawnpoint, NotFoundError } from '@spawnpoint/client'; console.log(typeof Spawnpoint, new NotFoundError({ error: 'x', status: 404 }, 'GET /').status)"], { cwd: dir, encoding: 'utf8' });
    expect(esm.trim()).toBe('function 404');
  });

  it('type-checks a consumer against its declarations alone, catching a wrong field', () => {
    writeFileSync(path.join(dir, 'consumer.ts'), `
import { Spawnpoint, type Server, type Lobby, ValidationError } from '@spawnpoint/client';
async function main(): Promise<void> {
  const sp = new Spawnpoint({ baseUrl: 'http://localhost:8080/api', apiKey: 'pf_x' });
  const s: Server = await sp.servers.start({ name: 'a', region: 'us-east', custom_data: { map: 'x' } });
  const port: number = s.network_ports[0].external_port;
  const lobby: Lobby = await sp.lobbies.asPlayer('p1').create('default', { isPrivate: true });
  const host: string = lobby.host;
  // @ts-expect-error: not a field of Server
  console.log(s.no_such_field, port, host);
  // @ts-expect-error: region is required
  await sp.servers.start({ name: 'b' });
  try { await sp.servers.get('x'); } catch (e) { if (e instanceof ValidationError) console.log(e.issues[0].loc); }
  const stream = sp.lobbies.asPlayer('p1').events('default');
  stream.on('lobby_updated', (l) => console.log(l.currentPlayers));
}
void main;
`);
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: [], skipLibCheck: false },
      files: ['consumer.ts'],
    }));
    execFileSync(process.execPath, [TSC, '-p', dir], { cwd: dir, encoding: 'utf8' });
  });
});
