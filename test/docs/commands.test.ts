// Every runnable block of the README and docs/ (see doc-blocks.ts) runs verbatim, as a reader
// runs it, in a fresh copy of the checkout with ../shared beside it, and touches nothing tracked
// and nothing beside the checkout. Blocks marked long are not run; the files they name must exist.
// test-runner: slow
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requires, type ToolName } from '../helpers/requires.ts';
import { allRunnableBlocks, docFiles, type DocBlock } from './doc-blocks.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** A bound on one block, far above what any takes (the longest, a short eval, about 30 s on a loaded machine). */
const BLOCK_LIMIT_MS = 600_000;
/** Built or installed things the copy shares with this checkout instead of rebuilding them. */
const SHARED_BUILDS = ['node_modules', 'dist', 'native-vp8/build', 'native-tun/build'];

function trackedFiles(): string[] {
  const out = spawnSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' });
  assert.is(out.status, 0, 'git ls-files');
  return out.stdout.split('\0').filter((path) => path !== '' && existsSync(join(root, path)));
}

function digest(dir: string, files: readonly string[]): Map<string, string> {
  return new Map(files.map((path) => [path, existsSync(join(dir, path)) ? createHash('sha256').update(readFileSync(join(dir, path))).digest('hex') : 'missing']));
}

/** A copy of the checkout's tracked files at TMP/main, with TMP/shared pointing at ../shared. */
function freshCopy(files: readonly string[]): { top: string; main: string } {
  const top = mkdtempSync(join(tmpdir(), 'docs-commands-'));
  const main = join(top, 'main');
  for (const path of files) {
    mkdirSync(dirname(join(main, path)), { recursive: true });
    copyFileSync(join(root, path), join(main, path));
  }
  for (const path of SHARED_BUILDS) if (existsSync(join(root, path))) symlinkSync(join(root, path), join(main, path));
  symlinkSync(join(root, '..', 'shared'), join(top, 'shared'));
  mkdirSync(join(top, 'home'));
  return { top, main };
}

/** The test of a block: uvu's, or one that skips and records what is missing (test/helpers/requires.ts). */
function testFor(block: DocBlock): typeof test {
  const tools = block.needs.filter((need): need is ToolName => need !== 'root');
  return requires(tools, { root: block.needs.includes('root') && process.getuid?.() !== 0 ? 'needs root' : undefined });
}

function run(block: DocBlock, cwd: string, home: string): Promise<{ status: number | null; output: string }> {
  const [program, args] = block.language === 'sh' ? ['bash', ['-e', '-o', 'pipefail', '-c', block.code]] : [process.execPath, ['--import', 'tsx', writeSnippet(block, cwd)]];
  return new Promise((resolve) => {
    const child = spawn(program, args, { cwd, env: { ...process.env, HOME: home, LINKSHELL_TRACES: '' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-6000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const limit = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), BLOCK_LIMIT_MS);
    child.on('close', (status) => {
      clearTimeout(limit);
      resolve({ status, output });
    });
  });
}

function writeSnippet(block: DocBlock, cwd: string): string {
  const path = join(cwd, `docs-snippet-${block.where.replace(/[^a-z0-9]+/gi, '-')}.ts`);
  writeFileSync(path, block.code);
  return path;
}

const blocks = allRunnableBlocks(root);
const files = trackedFiles();
const copy = freshCopy(files);
const before = digest(copy.main, files);

test.after(() => rmSync(copy.top, { recursive: true, force: true }));

test('the README is short: at most 400 lines, with the quick start and a link to every docs page', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  assert.ok(readme.split('\n').length <= 400, `README.md has ${readme.split('\n').length} lines`);
  assert.match(readme, /## Quick start\n[\s\S]*npm install && npm run demo\nnpm test\n/);
  for (const page of docFiles(root).slice(1)) assert.ok(readme.includes(`](${page})`), `README links ${page}`);
});

test('the docs hold runnable blocks, and the files that long ones name exist', () => {
  assert.ok(blocks.length >= 10, `${blocks.length} runnable blocks`);
  for (const block of blocks.filter((b) => b.long !== undefined)) {
    for (const [path] of block.code.matchAll(/\b(?:bench|examples|scripts|bin)\/[\w./-]+\.(?:ts|mjs|js|sh)\b/g)) assert.ok(existsSync(join(root, path)), `${block.where}: ${path} exists`);
  }
});

// A block given verbatim in two places (the README's example and its page's) runs once, for both.
const distinct = [...new Map(blocks.filter((b) => b.long === undefined).map((b) => [`${b.language}\0${b.code}\0${b.needs.join(',')}`, b])).values()];
const alsoAt = (block: DocBlock) => blocks.filter((b) => b !== block && b.code === block.code && b.language === block.language).map((b) => b.where);

for (const block of distinct) {
  testFor(block)(`${[block.where, ...alsoAt(block)].join(' and ')} runs verbatim from a fresh copy and changes nothing tracked`, async () => {
    const started = Date.now();
    const { status, output } = await run(block, copy.main, join(copy.top, "home"));
    if (process.env.DOCS_TEST_TIMES) process.stderr.write(`${block.where}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    assert.is(status, 0, `${block.where} exited ${status}:\n${output}`);
    const after = digest(copy.main, files);
    const changed = files.filter((path) => before.get(path) !== after.get(path));
    assert.equal(changed, [], `${block.where} changed tracked files`);
    assert.equal(readdirSync(copy.top).sort(), ['home', 'main', 'shared'], `${block.where} wrote beside the checkout`);
  });
}

test.run();
