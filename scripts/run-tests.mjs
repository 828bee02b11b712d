#!/usr/bin/env node
// Runs every test/**/*.test.ts and examples/**/*.test.ts file with uvu under tsx, in several worker
// processes at once, then prints one plain closing line ("tests: N passed, N failed, K skipped")
// that CI systems can read, then one line per missing system package whose tests were skipped
// ("skipped 3 tests: ffmpeg missing (apt-get install -y ffmpeg)"; test/helpers/requires.ts records
// them in $LOWLAT_TEST_SKIPS). It first brings dist/ (the JavaScript that bin/ runs, which the CLI
// tests spawn) up to date with src/ (scripts/build.mjs).
//
// A test file's first lines may carry one mark for the runner:
//   // test-runner: alone (REASON)   it runs with no other file running (real-time verdicts, CPU
//                                    starvation on purpose, machine-wide state such as iptables)
//   // test-runner: slow             it starts before the others, so the run does not end waiting on it
// Each file's report is printed whole when the file ends. A worker that dies fails the file it was
// running, and a new worker takes the remaining files.
//
// Usage: npm test [-- [--jobs N] [PATTERN]]   (PATTERN filters test file paths, a regex;
//        --jobs or $LOWLAT_TEST_JOBS: workers at once, default twice the cores, at most 4)
//        (--dir DIR --suffix .S.ts: other files than test/ and examples/ *.test.ts, for the runner's own test)
import { fork, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** A bound on one file, against a hang (the longest file takes under a minute on an idle machine). */
const FILE_LIMIT_MS = 20 * 60_000;
const USAGE = 'usage: npm test [-- [--jobs N] [--dir DIR]... [--suffix .test.ts] [PATTERN]]';

function fail(message) {
  console.error(`run-tests: ${message}\n${USAGE}`);
  process.exit(2);
}

function parseArguments(args) {
  // Twice the cores, at most 4: many tests wait on real time (sockets, daemons, a link's trace), so two
  // workers per core keep the cores busy; more would crowd the real-time tests.
  let jobs = process.env.LOWLAT_TEST_JOBS ?? String(Math.min(4, 2 * availableParallelism()));
  let pattern = null;
  const dirs = [];
  let suffix = '.test.ts';
  for (let i = 0; i < args.length; i++) {
    const form = /^(--jobs|-j|--dir|--suffix)(?:=(.*))?$/.exec(args[i]);
    if (form === null) {
      if (pattern === null) pattern = args[i];
      else fail(`unexpected argument ${JSON.stringify(args[i])}`);
      continue;
    }
    const value = form[2] ?? args[++i];
    if (value === undefined) fail(`${form[1]} needs a value`);
    if (form[1] === '--dir') dirs.push(value);
    else if (form[1] === '--suffix') suffix = value;
    else jobs = value;
  }
  for (const dir of dirs) if (!existsSync(join(root, dir)) || !statSync(join(root, dir)).isDirectory()) fail(`--dir ${JSON.stringify(dir)} is not a directory of the checkout`);
  if (!/^[1-9]\d*$/.test(String(jobs))) fail(`--jobs must be a whole number >= 1, got ${JSON.stringify(jobs)}`);
  let regex = null;
  if (pattern !== null) {
    try {
      regex = new RegExp(pattern);
    } catch (error) {
      fail(`PATTERN ${JSON.stringify(pattern)} is not a regular expression: ${error.message}`);
    }
  }
  return { jobs: Number(jobs), pattern: regex, dirs: dirs.length > 0 ? dirs : ['test', 'examples'], suffix };
}

function collect(dir, suffix) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path, suffix));
    else if (name.endsWith(suffix)) out.push(path);
  }
  return out;
}

/** The runner's mark in a file's first 30 lines: 'alone', 'slow' or 'plain'. */
function markOf(file) {
  const head = readFileSync(file, 'utf8').split('\n').slice(0, 30).join('\n');
  const mark = /^\/\/ test-runner: (alone|slow)\b/m.exec(head);
  return mark ? mark[1] : 'plain';
}

const { jobs, pattern, dirs, suffix } = parseArguments(process.argv.slice(2));
const files = dirs.flatMap((dir) => collect(join(root, dir), suffix))
  .filter((f) => !pattern || pattern.test(relative(root, f)))
  .map((path) => ({ path, label: relative(root, path), mark: markOf(path) }));
if (files.length === 0) {
  console.error(`no test files match ${pattern ?? `${dirs.join(', ')}: *${suffix}`}`);
  process.exit(1);
}

const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const skipDir = mkdtempSync(join(tmpdir(), 'run-tests-'));
const skipLog = join(skipDir, 'skips.jsonl');
const colour = process.env.FORCE_COLOR ?? (process.stdout.isTTY ? '1' : '0');

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

/** A worker process: run(file) resolves with the file's result, or a failure if the worker dies. */
function startWorker() {
  const child = fork(join(root, 'scripts', 'uvu-worker.mjs'), [], {
    cwd: root,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, LOWLAT_TEST_SKIPS: skipLog, FORCE_COLOR: colour },
  });
  let pending = null;
  let ended = false;
  // (A worker that dies before it is ready, e.g. when tsx cannot load, must not leave the run waiting.)
  const ready = new Promise((resolve) => {
    child.once('message', resolve);
    child.once('exit', resolve);
  });
  child.on('message', (message) => {
    if (pending && message.file === pending.file.path) pending.resolve(message);
  });
  child.on('exit', (code, signal) => {
    ended = true;
    pending?.resolve({ died: `its worker ended (exit ${code}, signal ${signal}) while it ran` });
  });
  return {
    alive: () => !ended,
    run: async (file) => {
      await ready;
      if (ended) return { died: 'its worker ended before it could run it' };
      const result = await new Promise((resolve) => {
        const timer = setTimeout(() => {
          resolve({ died: `it ran longer than ${FILE_LIMIT_MS / 60_000} minutes; its worker was ended` });
          child.kill('SIGKILL');
        }, FILE_LIMIT_MS);
        pending = { file, resolve: (r) => (clearTimeout(timer), resolve(r)) };
        child.send({ file: file.path, label: file.label });
      });
      pending = null;
      return result;
    },
    /** Lets the worker end by itself (nothing left to run); ends it if it is still there after `graceMs`. */
    stop: async (graceMs = 10_000) => {
      if (ended) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGTERM'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

const totals = { total: 0, passed: 0, skipped: 0 };
const failedFiles = [];

function report(file, result) {
  if (result.died || result.loadError || !Number.isFinite(result.total)) {
    const why = result.died ?? (result.loadError ? `it failed to load:\n${result.loadError}` : 'it printed no uvu summary');
    process.stdout.write(`${result.output ?? ''}\n${file.label}\n  FAIL  the file did not finish: ${why}\n\n`);
    totals.total += 1;
    failedFiles.push(file.label);
    return;
  }
  // uvu's Total counts the tests that ran; Skipped the ones that did not.
  const seconds = (result.ms / 1000).toFixed(1);
  const cpu = Number.isFinite(result.cpuS) ? `, ${result.cpuS.toFixed(1)} s of CPU` : '';
  process.stdout.write(result.output.replace(/\n\s*Total:[\s\S]*$/, '\n') + `  (${seconds} s${cpu})\n\n`);
  totals.total += result.total;
  totals.passed += result.passed;
  totals.skipped += result.skipped;
  if (result.passed < result.total) failedFiles.push(file.label);
}

/** Runs `queue` (in order) on `count` workers at once, replacing a worker that died. */
async function runPool(queue, count) {
  const lane = async () => {
    let worker = startWorker();
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      if (!worker.alive()) worker = startWorker();
      report(file, await worker.run(file));
    }
    await worker.stop();
  };
  await Promise.all(Array.from({ length: Math.min(count, queue.length) }, lane));
}

const started = Date.now();
const alone = files.filter((f) => f.mark === 'alone');
const shared = [...files.filter((f) => f.mark === 'slow'), ...files.filter((f) => f.mark === 'plain')];
const aloneCount = alone.length;
await runPool(shared, jobs);
await runPool(alone, 1);

const failed = totals.total - totals.passed;
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`  ${files.length} files, ${jobs} at once (${aloneCount} alone), ${minutes} min`);
if (failedFiles.length > 0) console.log(`  failed in: ${[...failedFiles].sort().join(', ')}`);
console.log(`tests: ${totals.passed} passed, ${failed} failed, ${totals.skipped} skipped`);
for (const line of skipLines()) console.log(line);
rmSync(skipDir, { recursive: true, force: true });
process.exit(failed === 0 ? 0 : 1);
