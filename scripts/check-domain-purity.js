#!/usr/bin/env node
// The domain is pure: nothing under libs/domain may import NestJS, I/O, a client library or the
// clock. Fails (exit 1) listing every offending import or global use.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', 'libs', 'domain', 'src');
const IMPORT = /(?:import\s[^'"]*?from\s*|import\s*\(\s*|require\s*\(\s*|export\s[^'"]*?from\s*)['"]([^'"]+)['"]/g;
const FORBIDDEN_GLOBALS = [/\bDate\.now\s*\(/, /\bnew Date\s*\(\s*\)/, /\bMath\.random\s*\(/, /\bprocess\./, /\bsetTimeout\s*\(/, /\bsetInterval\s*\(/, /\bfetch\s*\(/, /\bcrypto\.randomUUID\s*\(/];

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const problems = [];
for (const file of files(root)) {
  const isSpec = file.endsWith('.spec.ts') || file.endsWith('testing.ts');
  const text = fs.readFileSync(file, 'utf8');
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1];
    if (spec.startsWith('.')) continue; // relative imports stay inside the domain
    problems.push(`${path.relative(process.cwd(), file)}: imports "${spec}"`);
  }
  if (isSpec) continue;
  text.split('\n').forEach((line, i) => {
    for (const g of FORBIDDEN_GLOBALS) if (g.test(line)) problems.push(`${path.relative(process.cwd(), file)}:${i + 1}: uses ${g.source}`);
  });
}

if (problems.length) {
  console.error('libs/domain must stay pure (no NestJS, I/O, client libraries, clock or randomness):\n  ' + problems.join('\n  '));
  process.exit(1);
}
console.log(`domain purity: ${files(root).length} files checked, no impure imports`);
