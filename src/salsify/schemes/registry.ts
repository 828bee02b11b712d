// The registry of sender schemes: every name a CLI accepts comes from here.
// Each scheme is one file in this directory behind the interface in scheme.ts.
import { conventional1s } from './conventional-1s.ts';
import { salsify1 } from './salsify-1.ts';
import { salsify2 } from './salsify-2.ts';
import { salsify4 } from './salsify-4.ts';
import { salsifyNograce } from './salsify-nograce.ts';
import { salsifyTargetsize } from './salsify-targetsize.ts';
import type { SchemeParams, SenderScheme } from './scheme.ts';
import { webrtcLike } from './webrtc-like.ts';

const FACTORIES = {
  'salsify-1': salsify1,
  'salsify-2': salsify2,
  'conventional-1s': conventional1s,
  'salsify-nograce': salsifyNograce,
  'salsify-targetsize': salsifyTargetsize,
  'salsify-4': salsify4,
  'webrtc-like': (params: SchemeParams) => webrtcLike(params),
} as const satisfies Record<string, (params: SchemeParams) => SenderScheme>;

export type SchemeName = keyof typeof FACTORIES;

/** What a scheme is, where its name alone would mislead (every help text that lists schemes shows these). */
export const SCHEME_NOTES: ReadonlyArray<readonly [SchemeName, string]> = Object.freeze([
  ['webrtc-like', 'a model of a WebRTC sender (GCC and a libvpx-like CBR rate control), not Chromium'],
] as const);
export const SCHEME_NAMES = Object.freeze(Object.keys(FACTORIES)) as readonly SchemeName[];

/** Schemes that model another system rather than run it: tables label their rows "NAME (model)". */
const MODELS_OF_OTHER_SYSTEMS: ReadonlySet<string> = new Set<SchemeName>(['webrtc-like']);

/** A scheme's name as a table row shows it: "webrtc-like (model)", so that no one reads it as Chromium's figures. */
export function schemeRowLabel(name: string): string {
  return MODELS_OF_OTHER_SYSTEMS.has(name) ? `${name} (model)` : name;
}

export function isSchemeName(name: string): name is SchemeName {
  return Object.hasOwn(FACTORIES, name);
}

/** Builds a fresh scheme (schemes hold per-run state); throws a RangeError for an unknown name. */
export function createScheme(name: string, params: SchemeParams): SenderScheme {
  if (!isSchemeName(name)) {
    const names = SCHEME_NAMES.map((n) => JSON.stringify(n)).join(', ');
    throw new RangeError(`unknown scheme ${JSON.stringify(name)} (expected one of ${names})`);
  }
  return FACTORIES[name](params);
}

/**
 * Schemes only the simulator can run: the oracles (oracle.ts: delay-first
 * `oracle`, quality-first `oracle-quality`) know the simulated link's future,
 * so runSalsifySim builds them with that view; no live sender can (`salsify
 * send` does not offer them).
 */
export const SIMULATOR_ONLY_SCHEMES = Object.freeze(['oracle', 'oracle-quality'] as const);
export type SimulatorOnlyScheme = (typeof SIMULATOR_ONLY_SCHEMES)[number];
/** Every scheme `salsify sim` runs: the registry's and the simulator-only ones. */
export const SIM_SCHEME_NAMES: readonly (SchemeName | SimulatorOnlyScheme)[] = Object.freeze([...SCHEME_NAMES, ...SIMULATOR_ONLY_SCHEMES]);
