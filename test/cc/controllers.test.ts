// The controller registry and the loader of a user's PATH.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isToolkitError } from '../../src/common/errors.ts';
import { builtinController, builtinControllerNames, loadControllerModule, validateControllerModule } from '../../src/cc/controllers.ts';
import { gccController } from '../../src/cc/gcc/gcc.ts';
import { aimdController } from '../../src/cc/aimd.ts';

const dir = mkdtempSync(join(tmpdir(), 'controllers-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

async function refusal(pathOrName: string): Promise<{ code: string; message: string }> {
  try {
    await loadControllerModule(pathOrName);
  } catch (error) {
    assert.ok(isToolkitError(error), `a ToolkitError, got ${String(error)}`);
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error(`${pathOrName} was accepted`);
}

test('built-ins by name', async () => {
  assert.equal(builtinControllerNames(), ['gcc', 'gcc-classic-loss', 'gcc-draft02', 'aimd', 'nada', 'scream']);
  assert.is(builtinController('gcc'), gccController);
  assert.is(await loadControllerModule('aimd'), aimdController);
  assert.is(builtinController('cubic'), undefined);
});

test('a user\'s TypeScript module with named exports, or a default export, loads and works', async () => {
  const file = join(dir, 'fixed.ts');
  writeFileSync(
    file,
    `interface Options { initialBitrate: number }
export const name: string = 'fixed';
export function createController(options: Options) {
  let reports = 0;
  return { name, targetBitrate: (): number => options.initialBitrate + reports, onPacketSent() {}, onFeedback() { reports++; } };
}
`,
  );
  const module = await loadControllerModule(file);
  assert.is(module.name, 'fixed');
  const c = module.createController({ initialBitrate: 500_000, minBitrate: 1, maxBitrate: 1e7 });
  c.onFeedback({ packets: [] }, 0);
  assert.is(c.targetBitrate(), 500_001);
  const byDefault = join(dir, 'default.mts');
  writeFileSync(byDefault, `export default { name: 'd', createController: () => ({ name: 'd', targetBitrate: () => 1, onPacketSent() {}, onFeedback() {} }) };\n`);
  assert.is((await loadControllerModule(byDefault)).name, 'd');
});

test('one clear error naming the file and what is missing', async () => {
  const noFactory = join(dir, 'no-factory.ts');
  writeFileSync(noFactory, `export const name = 'x';\n`);
  let r = await refusal(noFactory);
  assert.is(r.code, 'ERR_BAD_INPUT');
  assert.match(r.message, `${noFactory}: not a rate controller module: missing \`export function createController(options)\``);
  const nothing = join(dir, 'nothing.ts');
  writeFileSync(nothing, `export {};\n`);
  assert.match((await refusal(nothing)).message, /missing `export const name` \(a non-empty string\) and `export function createController/);
  const noMethod = join(dir, 'no-method.ts');
  writeFileSync(noMethod, `export const name = 'x';\nexport function createController() { return { targetBitrate: () => 1, onPacketSent() {} }; }\n`);
  assert.match((await refusal(noMethod)).message, /no-method\.ts: .*has no onFeedback\(\)/);
  const nanRate = join(dir, 'nan.ts');
  writeFileSync(nanRate, `export const name = 'x';\nexport function createController() { return { targetBitrate: () => NaN, onPacketSent() {}, onFeedback() {} }; }\n`);
  assert.match((await refusal(nanRate)).message, /nan\.ts: .*targetBitrate\(\) returned NaN/);
  const throwing = join(dir, 'throws.ts');
  writeFileSync(throwing, `export const name = 'x';\nexport function createController() { throw new Error('no way'); }\n`);
  assert.match((await refusal(throwing)).message, /throws\.ts: createController\(.*\) threw: no way/);
  const broken = join(dir, 'broken.ts');
  writeFileSync(broken, `export const name = ;\n`);
  r = await refusal(broken);
  assert.is(r.code, 'ERR_BAD_INPUT');
  assert.match(r.message, /broken\.ts: cannot import the controller module/);
  assert.not.match(r.message, /\n/);
  r = await refusal(join(dir, 'missing.ts'));
  assert.is(r.code, 'ERR_UNREADABLE_FILE');
  assert.match(r.message, /missing\.ts: not a built-in controller \(gcc, gcc-classic-loss, gcc-draft02, aimd, nada, scream\) and no such file/);
  r = await refusal('cubic');
  assert.match(r.message, /^cubic: not a built-in controller/);
  r = await refusal(dir);
  assert.is(r.code, 'ERR_UNREADABLE_FILE');
  assert.match(r.message, /is a directory|a directory/);
  assert.throws(() => validateControllerModule(42, 'x.ts'), /x\.ts: not a rate controller module: it exports nothing/);
});

test.run();
