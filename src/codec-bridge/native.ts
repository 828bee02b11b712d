// Loads the native VP8 addon (native-vp8/, built by `npm install`) and types its interface.
import { existsSync } from 'node:fs';
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
  decoderDecode(decoder: Handle, frame: Uint8Array, refs: Refs | null, hashes: Hashes | null): Promise<NativeDecodeResult>;
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
}

const addonPath = fileURLToPath(new URL('../../native-vp8/build/Release/vp8.node', import.meta.url));
let loaded: NativeVp8 | null = null;

/** The addon, loaded on first use; throws one clear line when it has not been built. */
export function nativeVp8(): NativeVp8 {
  if (loaded) return loaded;
  if (!existsSync(addonPath)) {
    throw new Error(`native VP8 addon not built (${addonPath} missing): run \`npm install\` (needs libvpx-dev and pkg-config)`);
  }
  loaded = createRequire(import.meta.url)(addonPath) as NativeVp8;
  return loaded;
}
