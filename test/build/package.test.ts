// The package as a user installs it: every entry of the exports map exists in dist/ with its
// declarations and loads by the package's name (no tsx), the packed file list ships dist/ and the
// addons' sources but not src/ or the tests, and what only one part needs is not a dependency.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
type Entry = { types: string; default: string };
const entries = Object.entries(pkg.exports as Record<string, Entry | string>).filter((e): e is [string, Entry] => typeof e[1] !== 'string');

test('every entry of the exports map is built, with its declarations', () => {
  assert.ok(entries.length >= 9, 'a root entry and one per layer');
  for (const [name, entry] of entries) {
    assert.ok(existsSync(join(root, entry.default)), `${name}: ${entry.default}`);
    assert.ok(existsSync(join(root, entry.types)), `${name}: ${entry.types}`);
  }
});

test('the package loads by its name in plain Node, from dist/, and the root entry holds the usual starting points', () => {
  const names = entries.map(([name]) => (name === '.' ? pkg.name : `${pkg.name}/${name.slice(2)}`));
  const script = `for (const n of ${JSON.stringify(names)}) { const m = await import(n); if (Object.keys(m).length === 0) throw new Error(n + ' is empty'); }
const root = await import(${JSON.stringify(pkg.name)});
console.log(JSON.stringify(Object.keys(root)));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  const exported: string[] = JSON.parse(run.stdout);
  for (const name of ['Simulator', 'createSimNetwork', 'parseTrace', 'openTrace', 'createQueue', 'runSalsifySim', 'runRfc8867Case', 'tcpBulkFlow']) assert.ok(exported.includes(name), name);
});

test('the packed package holds dist/ and the native sources, not src/ or the tests', () => {
  const run = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  const files: string[] = JSON.parse(run.stdout)[0].files.map((f: { path: string }) => f.path);
  for (const path of ['dist/index.js', 'dist/index.d.ts', 'dist/.source-fingerprint', 'bin/salsify.js', 'scripts/install-native.mjs', 'native-vp8/binding.gyp', 'native-tun/binding.gyp', 'native-common/napi_util.c']) {
    assert.ok(files.includes(path), `${path} is packed`);
  }
  assert.equal(files.filter((path) => /^(src|test|bench)\//.test(path) || /\.test\.ts$/.test(path) || /\/build\//.test(path)), []);
});

test('the compiler and the browser driver are not dependencies of an install; puppeteer-core is an optional peer', () => {
  for (const name of ['typescript', 'tsx', 'puppeteer-core']) assert.not.ok(name in pkg.dependencies, name);
  assert.ok(pkg.peerDependenciesMeta['puppeteer-core'].optional);
  assert.ok(pkg.scripts.prepack.includes('build.mjs'));
});

test.run();
