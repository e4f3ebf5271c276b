#!/usr/bin/env node
// The `roundtable` command of package.json's `bin` (npx roundtable, or on PATH after `npm link`).
// The CLI itself is the bundle dist/apps/cli/main.js; a fresh checkout has no dist/, so the first
// run builds it (a few seconds) and says so on stderr, rather than failing with "Cannot find module".
'use strict';
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

// __dirname is the real directory even through npm link's symlink (node resolves the main module's links).
const root = path.resolve(__dirname, '..');
const bundle = path.join(root, 'dist', 'apps', 'cli', 'main.js');

if (!existsSync(bundle)) {
  process.stderr.write(`roundtable: ${path.relative(process.cwd(), bundle) || bundle} is missing; building it first (node tools/build.mjs cli)\n`);
  const built = spawnSync(process.execPath, [path.join(root, 'tools', 'build.mjs'), 'cli'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0 || !existsSync(bundle)) {
    process.stderr.write(`roundtable: building the CLI failed (exit ${built.status ?? built.signal}); run \`npm ci\` in ${root}, then \`npm run build\`\n`);
    process.exit(1);
  }
}
require(bundle);
