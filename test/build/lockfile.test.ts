// The committed package-lock.json matches package.json, so that `npm ci` (what .ci/run installs
// with) accepts it and `npm install` has nothing to rewrite.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (name: string) => JSON.parse(readFileSync(`${root}/${name}`, 'utf8'));

test('package-lock.json records the dependencies package.json declares, each resolved', () => {
  const pkg = read('package.json');
  const lock = read('package-lock.json');
  const own = lock.packages[''];
  assert.equal([lock.name, lock.version], [pkg.name, pkg.version]);
  assert.equal(own.dependencies ?? {}, pkg.dependencies ?? {}, 'dependencies');
  assert.equal(own.devDependencies ?? {}, pkg.devDependencies ?? {}, 'devDependencies');
  assert.equal(own.bin ?? {}, pkg.bin ?? {}, 'bin');
  for (const [name, kind] of [...Object.keys(pkg.dependencies ?? {}).map((n) => [n, 'dependency']), ...Object.keys(pkg.devDependencies ?? {}).map((n) => [n, 'devDependency'])]) {
    const entry = lock.packages[`node_modules/${name}`];
    assert.ok(entry?.version, `${name} is resolved in the lockfile`);
    // npm marks what only devDependencies need; a runtime dependency must not be marked so.
    if (kind === 'dependency') assert.not.ok(entry.dev, `${name} is a dependency, not marked dev in the lockfile`);
  }
});

test.run();
