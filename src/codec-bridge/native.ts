// Loads the native VP8 addon (native-vp8/, built by `npm install`) and types its interface.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export type Handle = { readonly __nativeHandle: unique symbol };

export interface NativeEncodeResult {
  frame: Uint8Array;
  /** The new last reference (macroblock-aligned I420). */
  reference: Uint8Array;
  hash: bigint;
  quantizer: number;
  keyFrame: boolean;
  throwawayEncodes: number;
  msInject: number;
  msThrowaway: number;
  msEncode: number;
  msExtract: number;
}

export interface NativeDecodeResult {
  picture: Uint8Array;
  /** New contents per slot (last, golden, alt-ref); null where the frame left the slot unchanged. */
  references: (Uint8Array | null)[];
  hashes: (bigint | null)[];
  keyFrame: boolean;
  quantizer: number;
  /** libvpx marked the frame corrupted and concealed what was missing (only when asked to conceal). */
  concealed: boolean;
  resets: number;
  msReset: number;
  msInject: number;
  msDecode: number;
  msExtract: number;
}

export interface NativeFrameHeader {
  keyFrame: boolean;
  version: number;
  showFrame: boolean;
  firstPartitionSize: number;
  width: number;
  height: number;
  quantizer: number;
  segmentationEnabled: boolean;
  loopFilterLevel: number;
  refreshEntropyProbs: boolean;
  refreshGolden: boolean;
  refreshAltRef: boolean;
  copyToGolden: number;
  copyToAltRef: number;
  refreshLast: boolean;
  /** Bit mask: 1 last, 2 golden, 4 alt-ref. */
  updatedRefs: number;
}

type Refs = readonly [Uint8Array, Uint8Array, Uint8Array];
type Hashes = readonly [bigint, bigint, bigint];

export interface NativeVp8 {
  encoderCreate(width: number, height: number, cpuUsed: number, errorResilient?: boolean, cyclicRefresh?: boolean): Handle;
  /** plain: the ordinary stateful way (refs only choose key frame (null) or not; no reference is returned). */
  encoderEncode(
    encoder: Handle,
    picture: Uint8Array,
    refs: Refs | readonly [] | null,
    hashes: Hashes | null,
    level: number,
    plain?: boolean,
  ): Promise<NativeEncodeResult>;
  encoderClose(encoder: Handle): void;
  decoderCreate(width: number, height: number, cpuUsed: number): Handle;
  /** conceal: `frame` may be the received prefix of a frame, decoded with error concealment (needs errorConcealment()). */
  decoderDecode(decoder: Handle, frame: Uint8Array, refs: Refs | null, hashes: Hashes | null, conceal?: boolean): Promise<NativeDecodeResult>;
  decoderClose(decoder: Handle): void;
  streamDecoderCreate(): Handle;
  streamDecode(decoder: Handle, frame: Uint8Array): Promise<{ width: number; height: number; data: Uint8Array }>;
  hash(bytes: Uint8Array, seed?: bigint): bigint;
  ssim(a: Uint8Array, b: Uint8Array, width: number, height: number): [number, number, number];
  ssimAsync(a: Uint8Array, b: Uint8Array, width: number, height: number): Promise<[number, number, number]>;
  parseFrameHeader(frame: Uint8Array): NativeFrameHeader;
  /** VP8 quantizer index (0..127) of each libvpx quantizer level 0..63. */
  levelTable(): number[];
  poolIdleBytes(): number;
  libvpxVersion(): string;
  /** Whether the linked libvpx's VP8 decoder can conceal errors (built with --enable-error-concealment). */
  errorConcealment(): boolean;
}

const addonPath = fileURLToPath(new URL('../../native-vp8/build/Release/vp8.node', import.meta.url));
let loaded: NativeVp8 | null = null;

const choicePath = fileURLToPath(new URL('../../native-vp8/build/libvpx-build.json', import.meta.url));

/** Which libvpx the addon links, as its install step recorded it (scripts/libvpx-source.mjs), and whether it conceals errors. */
export interface LibvpxBuild {
  readonly version: string;
  readonly errorConcealment: boolean;
  /** 'source': built from Debian's source with error concealment; 'system': the distribution's library; 'unknown': not recorded. */
  readonly kind: 'source' | 'system' | 'unknown';
  /** Why the system library was linked, or the source tarball built. */
  readonly detail: string;
}

export function libvpxBuild(): LibvpxBuild {
  const native = nativeVp8();
  let kind: LibvpxBuild['kind'] = 'unknown';
  let detail = 'no record of the install step (native-vp8/build/libvpx-build.json)';
  try {
    const r = JSON.parse(readFileSync(choicePath, 'utf8')) as { kind?: string; reason?: string; tarball?: string; tarballSha256?: string };
    if (r.kind === 'source') {
      kind = 'source';
      detail = `${r.tarball ?? '?'} sha256 ${(r.tarballSha256 ?? '?').slice(0, 12)}`;
    } else if (r.kind === 'system') {
      kind = 'system';
      detail = r.reason ?? '';
    }
  } catch {
    // not recorded: an addon built before the record existed
  }
  return { version: native.libvpxVersion(), errorConcealment: native.errorConcealment(), kind, detail };
}

/** One line describing the linked libvpx. */
export function describeLibvpx(b: LibvpxBuild): string {
  const how = b.kind === 'source' ? `built from Debian's source, static (${b.detail})` : b.kind === 'system' ? `system library (${b.detail})` : b.detail;
  return `libvpx ${b.version}, ${b.errorConcealment ? 'with' : 'without'} error concealment: ${how}`;
}

/** The addon, loaded on first use; throws one clear line when it has not been built. */
export function nativeVp8(): NativeVp8 {
  if (loaded) return loaded;
  if (!existsSync(addonPath)) {
    throw new Error(`native VP8 addon not built (${addonPath} missing): run \`npm install\` (needs libvpx-dev and pkg-config)`);
  }
  loaded = createRequire(import.meta.url)(addonPath) as NativeVp8;
  return loaded;
}
