// Bundles the web console (console/src, plain TypeScript and DOM) into dist/console with esbuild: hashed,
// immutable assets under assets/ and an index.html naming them. Nothing is loaded from another origin: the
// client SDK is bundled from its source. Run by the gateway's build after tsc (turbo caches dist/**).
const { buildSync } = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const root = __dirname;
const out = path.join(root, '..', 'dist', 'console');
fs.rmSync(out, { recursive: true, force: true });

const result = buildSync({
  entryPoints: { console: path.join(root, 'src', 'main.ts') },
  bundle: true,
  format: 'esm',
  target: 'es2022',
  platform: 'browser',
  minify: true,
  sourcemap: false,
  outdir: path.join(out, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  alias: { '@spawnpoint/client': path.join(root, '..', '..', '..', 'packages', 'client', 'src', 'index.ts') },
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
const js = outputs.find((f) => f.endsWith('.js'));
const css = outputs.find((f) => f.endsWith('.css'));
if (!js || !css) throw new Error(`console build: expected a .js and a .css output, got ${outputs.join(', ')}`);

const html = fs.readFileSync(path.join(root, 'index.html'), 'utf8').replace('%CSS%', `assets/${css}`).replace('%JS%', `assets/${js}`);
fs.writeFileSync(path.join(out, 'index.html'), html);
