// What a run's result depends on, and its hash: the complete simulator config
// (scheme, every scenario option, codec, timing, seed, video), the content of
// the input files it names (each trace and the clip, by SHA-256, so a changed
// file is a new run and a copied one is the same run), and the toolkit's
// version. The hash names the run's result in the store (store.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { toolkitError, unreadableFile } from '../common/errors.ts';
import { resolveTraceName } from '../link-emu/trace-files.ts';
import type { SalsifySimConfig } from '../salsify/sim-runner.ts';

export interface InputDigest {
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface RunKey {
  readonly config: SalsifySimConfig;
  readonly inputs: {
    readonly downlink: InputDigest | null;
    readonly uplink: InputDigest | null;
    readonly video: InputDigest | null;
  };
  readonly version: string;
}

const digests = new Map<string, { bytes: number; sha256: string }>();

function fileDigest(path: string): { bytes: number; sha256: string } {
  let known = digests.get(path);
  if (known === undefined) {
    let content: Buffer;
    try {
      content = readFileSync(path);
    } catch (error) {
      throw unreadableFile(path, error);
    }
    known = { bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') };
    digests.set(path, known);
  }
  return known;
}

function traceDigest(link: SalsifySimConfig['downlink']): InputDigest | null {
  if (typeof link !== 'string') return null;
  return { name: link, ...fileDigest(resolveTraceName(link)) };
}

function videoDigest(video: string): InputDigest | null {
  if (video === 'synthetic' || video.startsWith('synthetic:')) return null;
  return { name: video, ...fileDigest(video) };
}

let version: string | undefined;

/** The toolkit's version (package.json's), read once. */
export function toolkitVersion(): string {
  if (version === undefined) {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    const v = (JSON.parse(text) as { version?: unknown }).version;
    if (typeof v !== 'string') throw toolkitError('ERR_INTERNAL', 'package.json has no version');
    version = v;
  }
  return version;
}

export function runKey(config: SalsifySimConfig): RunKey {
  return {
    config,
    inputs: { downlink: traceDigest(config.downlink), uplink: traceDigest(config.uplink), video: videoDigest(config.video) },
    version: toolkitVersion(),
  };
}

/** JSON with every object's keys sorted: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** The run's hash: SHA-256 of its key's canonical JSON, 32 hex digits (128 bits). */
export function configHash(key: RunKey): string {
  return createHash('sha256').update(canonicalJson(key)).digest('hex').slice(0, 32);
}
