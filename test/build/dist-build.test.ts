// The install-time build (scripts/build.mjs: src/ compiled to dist/) and the launchers in bin/ that
// run it: bin/ runs the built JavaScript when it is current, and when a source changed it says so
// and runs the sources through tsx; a rebuild replaces dist/ whole; a failed one leaves it in place.
// test-runner: slow
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { processesMentioning } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait-for.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
// A bound against a hang, not a speed: a build takes 10 to 20 s on an idle 2-core machine and was
// seen to take over 3 minutes on one shared by several test runs. When it is reached, the build
// (scripts/build.mjs) ends its compiler and removes its staging tree before exiting.
const TIMEOUT_MS = 900_000;

function node(cwd: string, ...args: string[]): SpawnSyncReturns<string> {
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: TIMEOUT_MS });
  if (r.error) throw new Error(`node ${args.join(' ')} in ${cwd}: ${r.error.message} (bound ${TIMEOUT_MS / 1000} s)`);
  return r;
}

/** A copy of the parts the build and the launchers use, sharing node_modules and the addon; unbuilt. */
function copyOfTheBuild(): string {
  const copy = mkdtempSync(join(tmpdir(), 'dist-build-test-'));
  for (const part of ['src', 'bin', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'package.json']) {
    cpSync(join(root, part), join(copy, part), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  symlinkSync(join(root, 'native-vp8'), join(copy, 'native-vp8'));
  return copy;
}

test('bin/ runs the built dist/ (current after npm test\'s build): same help as the sources, VP8 codec and native addon found', () => {
  const built = node(root, 'bin/linkshell.js', '--help');
  assert.is(built.status, 0, built.stderr);
  assert.is(built.stderr, '', 'no staleness notice: npm test built dist/ first');
  const fromSource = node(root, '--import', 'tsx', 'src/cli/linkshell.ts', '--help');
  assert.is(built.stdout, fromSource.stdout);
  assert.ok(built.stdout.includes('Usage:'));
  // The VP8 module is imported lazily through a computed path, and the addon by a path relative to the module.
  const sim = node(root, 'bin/salsify.js', 'sim', '--downlink', 'traces/cellular-6mbps.trace', '--uplink', 'traces/cellular-6mbps-up.trace',
    '--codec', 'vp8', '--video', 'synthetic:64x48@10', '--duration', '0.3', '--scheme', 'salsify-1');
  assert.is(sim.status, 0, sim.stderr);
  assert.is(sim.stderr, '');
  assert.match(sim.stdout, /codec vp8/);
  assert.match(sim.stdout, /salsify-1/);
});

test('a changed source makes bin/ say dist/ is stale and run the sources; a rebuild replaces dist/ whole; a failed build keeps it', () => {
  const copy = copyOfTheBuild();
  try {
    const help = () => node(copy, 'bin/linkshell.js', '--help');

    const unbuilt = help();
    assert.is(unbuilt.status, 0, unbuilt.stderr);
    assert.is(unbuilt.stderr, 'linkshell: dist/ has not been built; running the TypeScript sources through tsx (slower start); run `npm run build`\n');
    const expected = unbuilt.stdout;

    writeFileSync(join(copy, 'src', 'extra-module.ts'), 'export const extra: number = 1;\n');
    let build = node(copy, 'scripts/build.mjs');
    assert.is(build.status, 0, build.stderr);
    assert.match(build.stdout, /^build: compiled src\/ to dist\/ in \d+\.\d s \(dist\/ has not been built\)\n$/);
    assert.ok(existsSync(join(copy, 'dist', 'cli', 'linkshell.js')));
    assert.ok(existsSync(join(copy, 'dist', 'extra-module.js')));
    let run = help();
    assert.equal([run.status, run.stderr, run.stdout], [0, '', expected]);
    // Up to date: nothing to do, nothing printed.
    build = node(copy, 'scripts/build.mjs');
    assert.equal([build.status, build.stdout, build.stderr], [0, '', '']);

    // An edited source: bin/ says so (one line) and still gives the right answer.
    appendFileSync(join(copy, 'src', 'common', 'timer.ts'), '\n// edited\n');
    run = help();
    assert.is(run.status, 0, run.stderr);
    assert.is(run.stderr, 'linkshell: dist/ is older than src/, which changed since the last build; running the TypeScript sources through tsx (slower start); run `npm run build`\n');
    assert.is(run.stdout, expected);

    // A removed source: the rebuilt dist/ has no leftover of it.
    rmSync(join(copy, 'src', 'extra-module.ts'));
    build = node(copy, 'scripts/build.mjs');
    assert.is(build.status, 0, build.stderr);
    assert.not.ok(existsSync(join(copy, 'dist', 'extra-module.js')), 'a deleted source leaves no built file behind');
    run = help();
    assert.equal([run.status, run.stderr, run.stdout], [0, '', expected]);

    // A source that does not parse: the build fails in one closing line and the previous dist/ stays.
    writeFileSync(join(copy, 'src', 'broken.ts'), 'export const = ;\n');
    build = node(copy, 'scripts/build.mjs');
    assert.is(build.status, 1);
    assert.match(build.stderr, /build: compiling src\/ to dist\/ failed \(see the compiler output above\); dist\/ is unchanged\n$/);
    assert.ok(existsSync(join(copy, 'dist', 'cli', 'linkshell.js')));
    assert.not.ok(existsSync(join(copy, 'dist', 'broken.js')));
  } finally {
    rmSync(copy, { recursive: true, force: true, maxRetries: 5 });
  }
});

test('a build stopped by SIGTERM (a time bound) ends its compiler and leaves no staging tree behind', async () => {
  const copy = copyOfTheBuild();
  try {
    const build = spawn(process.execPath, ['scripts/build.mjs'], { cwd: copy, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    build.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => build.once('close', (code) => resolve(code)));
    const staging = join(copy, `.dist-staging-${build.pid}`);
    // The compiler is running once a process names the staging tree (its --outDir).
    await waitFor(() => processesMentioning(staging).length > 0, TIMEOUT_MS, `the compiler writing to ${staging}`);
    build.kill('SIGTERM');
    assert.is(await exited, 143, stderr);
    assert.is(stderr, 'build: stopped by SIGTERM; dist/ is unchanged\n');
    assert.equal(processesMentioning(staging), [], 'the compiler ended with the build');
    assert.not.ok(existsSync(staging), `${staging} is left`);
    assert.not.ok(existsSync(join(copy, 'dist')));
  } finally {
    rmSync(copy, { recursive: true, force: true, maxRetries: 5 });
  }
});

test.run();
