#!/usr/bin/env node
// Runs every test/**/*.test.ts and examples/**/*.test.ts file with uvu under tsx, then prints one plain
// closing line ("tests: N passed, N failed") that CI systems can read. It first brings dist/ (the
// JavaScript that bin/ runs, which the CLI tests spawn) up to date with src/ (scripts/build.mjs).
// Usage: npm test [-- PATTERN]   (PATTERN filters test file paths, a regex)
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pattern = process.argv[2] ? new RegExp(process.argv[2]) : null;

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const files = [...collect(join(root, 'test')), ...collect(join(root, 'examples'))].filter((f) => !pattern || pattern.test(relative(root, f)));
if (files.length === 0) {
  console.error(`no test files match ${pattern ?? 'test/**/*.test.ts'}`);
  process.exit(1);
}

const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'uvu-exec.mjs'), ...files], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? '1' : '0') },
});
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-4000);
});
child.on('close', (code, signal) => {
  // uvu's summary: "Total: N", "Passed: N", "Skipped: N" (possibly with ANSI colours).
  const plain = tail.replace(/\x1b\[[0-9;]*m/g, '');
  const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? NaN);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  if (Number.isFinite(total) && Number.isFinite(passed)) {
    const failed = total - passed - skipped;
    console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
    process.exit(code === 0 && failed === 0 ? 0 : 1);
  }
  console.error(`test runner ended without a summary (exit ${code}, signal ${signal})`);
  process.exit(code || 1);
});
