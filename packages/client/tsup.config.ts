// ESM + CJS + declarations. The declarations inline the contract types from @spawnpoint/proto (dts resolve),
// so the published package depends on nothing of ours; the code imports proto for types only.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', node: 'src/node.ts' },
  format: ['cjs', 'esm'],
  dts: { resolve: [/^@spawnpoint\//, /^\.\.?\//] },
  clean: true,
  target: 'es2022',
  platform: 'neutral',
  external: ['node:fs', 'node:os', 'node:path', 'yazl'],
  tsconfig: 'tsconfig.json',
});
