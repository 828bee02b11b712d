// The built-in rate controllers by name, and the loader of a user's own
// controller module (`ccbench --controller gcc|aimd|PATH.ts`).
//
// A controller module exports `name` (a non-empty string) and
// `createController(options)` (a function returning a RateController:
// targetBitrate, onPacketSent, onFeedback), as named exports or as the
// properties of its default export. loadControllerModule imports the file
// (TypeScript through tsx, whatever runs the toolkit), checks those exports
// and calls createController once with sample options to check what it
// returns; anything missing is one ToolkitError (ERR_BAD_INPUT) naming the
// file and what is missing, and a file that cannot be read or imported is
// ERR_UNREADABLE_FILE / ERR_BAD_INPUT naming the file.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileKind, isToolkitError, toolkitError, unreadableFile } from '../common/errors.ts';
import { aimdController } from './aimd.ts';
import type { RateControllerModule } from './controller.ts';
import { gccClassicLossController, gccController, gccDraft02Controller } from './gcc/gcc.ts';
import { nadaController } from './nada/nada.ts';
import { screamController } from './scream/scream.ts';

const BUILTIN: ReadonlyMap<string, RateControllerModule> = new Map([
  ['gcc', gccController],
  ['gcc-classic-loss', gccClassicLossController],
  ['gcc-draft02', gccDraft02Controller],
  ['aimd', aimdController],
  ['nada', nadaController],
  ['scream', screamController],
]);

/** Names of the built-in controllers, in the order tables list them. */
export function builtinControllerNames(): string[] {
  return [...BUILTIN.keys()];
}

/** A built-in controller module, or undefined. */
export function builtinController(name: string): RateControllerModule | undefined {
  return BUILTIN.get(name);
}

const SAMPLE_OPTIONS = { initialBitrate: 300_000, minBitrate: 50_000, maxBitrate: 10_000_000 } as const;

/** Checks that `value` is a controller module; returns it, or throws naming `source` and what is missing. */
export function validateControllerModule(value: unknown, source: string): RateControllerModule {
  const fail = (what: string) => toolkitError('ERR_BAD_INPUT', `${source}: not a rate controller module: ${what}`);
  if (value === null || typeof value !== 'object') throw fail('it exports nothing');
  const exports = value as Record<string, unknown>;
  const fromDefault = exports.default !== null && typeof exports.default === 'object' ? (exports.default as Record<string, unknown>) : undefined;
  const pick = (key: string) => (exports[key] !== undefined ? exports[key] : fromDefault?.[key]);
  const name = pick('name');
  const createController = pick('createController');
  const missing: string[] = [];
  if (typeof name !== 'string' || name.trim() === '') missing.push('`export const name` (a non-empty string)');
  if (typeof createController !== 'function') missing.push('`export function createController(options)`');
  if (missing.length > 0) throw fail(`missing ${missing.join(' and ')}`);
  const module: RateControllerModule = { name: name as string, createController: createController as RateControllerModule['createController'] };
  let sample: unknown;
  try {
    sample = module.createController({ ...SAMPLE_OPTIONS });
  } catch (error) {
    throw toolkitError('ERR_BAD_INPUT', `${source}: createController(${JSON.stringify(SAMPLE_OPTIONS)}) threw: ${error instanceof Error ? error.message : String(error)}`, error);
  }
  if (sample === null || typeof sample !== 'object') throw fail(`createController() returned ${sample === null ? 'null' : typeof sample}, not a controller object`);
  const controller = sample as Record<string, unknown>;
  const methods = ['targetBitrate', 'onPacketSent', 'onFeedback'].filter((m) => typeof controller[m] !== 'function');
  if (methods.length > 0) throw fail(`the controller createController() returns has no ${methods.map((m) => `${m}()`).join(', ')}`);
  const rate = (controller.targetBitrate as () => unknown).call(controller);
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) throw fail(`targetBitrate() returned ${String(rate)}, not a finite number of bit/s >= 0`);
  return module;
}

/**
 * A built-in controller by name, or the module at a path (relative to the
 * working directory), imported and validated (see above).
 */
export async function loadControllerModule(pathOrName: string): Promise<RateControllerModule> {
  const builtin = BUILTIN.get(pathOrName);
  if (builtin !== undefined) return builtin;
  const path = resolve(pathOrName);
  if (!existsSync(path)) {
    throw toolkitError('ERR_UNREADABLE_FILE', `${pathOrName}: not a built-in controller (${builtinControllerNames().join(', ')}) and no such file`);
  }
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw unreadableFile(pathOrName, error);
  }
  if (!stats.isFile()) throw toolkitError('ERR_UNREADABLE_FILE', `cannot read ${pathOrName}: ${fileKind(stats)}`);
  let exports: unknown;
  try {
    const url = pathToFileURL(path).href;
    if (/\.[mc]?ts$/.test(path)) {
      const { tsImport } = await import('tsx/esm/api').catch((error: unknown) => {
        throw toolkitError('ERR_UNREADABLE_FILE', `${pathOrName}: a TypeScript controller module needs the package tsx (npm install tsx), or give its compiled .js`, error);
      });
      exports = await tsImport(url, import.meta.url);
    } else {
      exports = await import(url);
    }
  } catch (error) {
    if (isToolkitError(error)) throw error;
    throw toolkitError('ERR_BAD_INPUT', `${pathOrName}: cannot import the controller module: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, error);
  }
  return validateControllerModule(exports, pathOrName);
}
