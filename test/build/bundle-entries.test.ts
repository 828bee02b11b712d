// linkshell's one-file bundle (scripts/bundle-entries.mjs): the build makes it, bin/ runs it, it
// finds what its modules find relative to themselves, and a module whose relative paths would not
// hold in it stops the build instead of making a bundle that looks for files in the wrong place.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error: a plain JavaScript module of the build, without declarations.
import { BUNDLE_DIR, bundleEntries } from '../../scripts/bundle-entries.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 60_000 });

test('the build bundles linkshell; the bundle prints the same version and help as the module tree, from the same package.json', () => {
  const bundle = join(root, 'dist', BUNDLE_DIR as string, 'linkshell.js');
  assert.ok(existsSync(bundle), `${bundle} missing: npm test builds dist/ first`);
  for (const args of [['--version'], ['--help']]) {
    const bundled = run(bundle, ...args);
    const tree = run(join(root, 'dist/cli/linkshell.js'), ...args);
    assert.is(bundled.status, 0, bundled.stderr);
    assert.is(bundled.stdout, tree.stdout);
  }
  assert.match(run(bundle, '--version').stdout, /^linkshell \d+\.\d+\.\d+ \(lowlat-video-toolkit\)\n/);
});

test('a module deeper than one folder that uses import.meta stops the bundle, named', async () => {
  const tree = mkdtempSync(join(tmpdir(), 'bundle-test-'));
  try {
    mkdirSync(join(tree, 'cli/a/b'), { recursive: true });
    writeFileSync(join(tree, 'cli/linkshell.js'), "import { here } from './a/b/deep.js';\nconsole.log(here);\n");
    writeFileSync(join(tree, 'cli/a/b/deep.js'), "export const here = new URL('../../x', import.meta.url).href;\n");
    try {
      await (bundleEntries as (tree: string) => Promise<void>)(tree);
      assert.unreachable('bundled a module whose relative path would not hold');
    } catch (error) {
      assert.match((error as Error).message, /^cli\/a\/b\/deep\.js uses import\.meta and is not one folder deep/);
    }
    writeFileSync(join(tree, 'cli/a/b/deep.js'), "export const here = 'no relative path';\n");
    await (bundleEntries as (tree: string) => Promise<void>)(tree);
    assert.ok(existsSync(join(tree, BUNDLE_DIR as string, 'linkshell.js')));
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
});

test.run();
