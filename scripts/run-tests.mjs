#!/usr/bin/env node
// Runs every test/**/*.test.ts and examples/**/*.test.ts file with uvu under tsx, then prints one plain
// closing line ("tests: N passed, N failed, K skipped") that CI systems can read, then one line per
// missing system package whose tests were skipped ("skipped 3 tests: ffmpeg missing (apt-get install
// -y ffmpeg)"; test/helpers/requires.ts records them in $LOWLAT_TEST_SKIPS). It first brings dist/
// (the JavaScript that bin/ runs, which the CLI tests spawn) up to date with src/ (scripts/build.mjs).
// Usage: npm test [-- PATTERN]   (PATTERN filters test file paths, a regex)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

const skipDir = mkdtempSync(join(tmpdir(), 'run-tests-'));
const skipLog = join(skipDir, 'skips.jsonl');

/** "skipped N tests: REASON (INSTALL)" per reason recorded, most tests first. */
function skipLines() {
  if (!existsSync(skipLog)) return [];
  const byReason = new Map();
  for (const line of readFileSync(skipLog, 'utf8').split('\n').filter(Boolean)) {
    const { test, reason, install } = JSON.parse(line);
    const key = install ? `${reason} (${install})` : reason;
    byReason.set(key, (byReason.get(key) ?? new Set()).add(test));
  }
  return [...byReason].sort((a, b) => b[1].size - a[1].size).map(([key, tests]) => `skipped ${tests.size} test${tests.size === 1 ? '' : 's'}: ${key}`);
}

const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'uvu-exec.mjs'), ...files], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, LOWLAT_TEST_SKIPS: skipLog, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? '1' : '0') },
});
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-4000);
});
child.on('close', (code, signal) => {
  // uvu's summary: "Total: N", "Passed: N", "Skipped: N" (possibly with ANSI colours).
  const skipReasons = skipLines();
  rmSync(skipDir, { recursive: true, force: true });
  const plain = tail.replace(/\x1b\[[0-9;]*m/g, '');
  const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? NaN);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  if (Number.isFinite(total) && Number.isFinite(passed)) {
    // uvu's Total counts the tests that ran (skipped ones are not in it).
    const failed = total - passed;
    console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
    for (const line of skipReasons) console.log(line);
    process.exit(code === 0 && failed === 0 ? 0 : 1);
  }
  console.error(`test runner ended without a summary (exit ${code}, signal ${signal})`);
  process.exit(code || 1);
});
