// ESM + CJS + declarations, no runtime dependency: the contract types from @spawnpoint/proto are inlined
// into the declarations (dts resolve), and the CJS file alone is what examples/zip-build.js vendors into
// the sample game's ZIP.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['cjs', 'esm'],
  dts: { resolve: [/^@spawnpoint\//, /^\.\.?\//] },
  clean: true,
  target: 'es2022',
  platform: 'node',
  tsconfig: 'tsconfig.json',
});
