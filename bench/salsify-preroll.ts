// What the paper's bench sent before its clip began, and what that does to
// our rows: a labelled variant of the presets, not a preset (see
// docs/paper-reproduction.md, "The T-Mobile backlog at 62 s").
//
//   node --import tsx bench/salsify-preroll.ts [--rows tmobile|others|all] [--still-wire-bytes N]
//       [--still-encode-ms MS] [--salsify-1-start-s S] [--others PRESET,...] [--video FILE]
//
// Rows: tmobile-umts Salsify-1, -2 and -4 (--rows tmobile), Salsify-1 on the
// --others presets (default att-lte,on-off; --rows others), or both (all).
//
// The paper's runs (excamera/salsify-results) streamed before the clip: the
// sender ran from some seconds after the emulator started (its first
// acknowledgement 42.4 s after the uplink log's base timestamp in the T-Mobile
// Salsify-1 run, 13.6 and 8.8 s in the Salsify-2 and -4 runs, 10.1 s in the
// wifi Salsify-1 run), and the clip began about 62 s in. Until then the
// capture card held a still picture. The one run whose downlink log the
// mirror keeps (0.57mbps-poisson/salsify-1) shows what the sender made of it:
// one datagram per frame, every one 937 bytes on the wire, 20 frames a
// second (a cycle of 3 camera intervals, where the clip's is 5), from
// 10.08 s to the clip.
//
// The variant: the capture shows the clip's first frame, still, for [0, 62) s
// and the clip from 62 s (the window [62, 702) s is the clip, as before). A
// still picture's inter frame costs --still-wire-bytes on the wire (default
// 937, that run's) at any quantizer (the model codec's header, padded), and
// one encoding of a still picture --still-encode-ms (default 12.5: that
// run's 3-interval cycle needs 8.3 < T <= 16.7 ms for Salsify-1's two
// encodings in a row; the T-Mobile Salsify-2 and -4 runs' 28 to 30
// acknowledgements a second before the outage, a 2-interval cycle, need
// T <= 16.7 ms). Key frames as the model codec makes them, 1.5 times the
// time. --salsify-1-start-s S also runs tmobile-umts Salsify-1 with a sender
// that sends nothing before S seconds (a fresh sender at S: no estimate, the
// key frame, an unlimited target until the first acknowledgement), as the
// paper's Salsify-1 run started between 40.0 and 42.35 s; it is that one
// run's start, shown to measure what it changes, not a setting for the rows.
//
// Each row also runs without the presets' other traffic on the downlink
// (downlinkOtherTraffic null; the presets' is 4,000 bytes a second in
// 100-byte packets, the paper's bench's own traffic: presets.ts), to show
// what that traffic does.
//
// Each row runs our preset as it is and with the variants (model codec,
// paper timing, window [62, 702) s) and prints mean / p5 / p95 signal delay
// and the mean signal delay of the source frames captured in [62, 80) s.
import { integerValue, nameListValue, nameValue, numberValue } from '../src/common/validate.ts';
import { openCodec, openVideo } from '../src/salsify/open-inputs.ts';
import { option, refuseUnknownOptions } from './options.ts';
import { runSalsifySim, type RunHooks } from '../src/salsify/sim-runner.ts';
import { createScheme } from '../src/salsify/schemes/registry.ts';
import type { SenderScheme } from '../src/salsify/schemes/scheme.ts';
import { paperEncodeMs, KEY_FRAME_ENCODE_FACTOR } from '../src/salsify/timing-model.ts';
import { FRAGMENT_OVERHEAD_BYTES, REFERENCE_FRAGMENT_PAYLOAD } from '../src/salsify/datagram.ts';
import { CELLSIM_OVERHEAD_BYTES, PAPER_WARMUP_S, PRESET_NAMES } from '../src/salsify/presets.ts';
import { BETTER_STEP, WORSE_STEP } from '../src/salsify/quantizer.ts';
import { DEFAULT_MAX_SKIPS } from '../src/salsify/choose-encoding.ts';
import type { FunctionalCodec, Picture } from '../src/codec-bridge/types.ts';
import type { VideoSource } from '../src/codec-bridge/video/video-source.ts';
import type { FrameRecord } from '../src/results/frame-record.ts';

refuseUnknownOptions(['rows', 'still-wire-bytes', 'still-encode-ms', 'salsify-1-start-s', 'others', 'video']);

/** The model codec's frame header (model-codec.ts: 28 bytes and the 16 x 9 samples): a padded frame keeps it whole. */
const MODEL_HEADER_BYTES = 28 + 16 * 9;

interface Options {
  rows: 'tmobile' | 'others' | 'all';
  stillWireBytes: number;
  stillEncodeMs: number;
  salsify1StartS: number | undefined;
  others: string[];
  video: string;
}

/** The command line through the project's option layer (bench/options.ts, src/common/validate.ts): one line and status 2 on a bad value. */
function parseOptions(): Options {
  const optional = <T>(name: string, parse: (text: string) => T): T | undefined => {
    const text = option(name, '');
    return text === '' ? undefined : parse(text);
  };
  const onWire = (payload: number) => payload + FRAGMENT_OVERHEAD_BYTES + CELLSIM_OVERHEAD_BYTES;
  return {
    rows: nameValue('rows', option('rows', 'all'), ['tmobile', 'others', 'all'] as const),
    stillWireBytes: integerValue('still-wire-bytes', option('still-wire-bytes', '937'), { min: onWire(MODEL_HEADER_BYTES), max: onWire(REFERENCE_FRAGMENT_PAYLOAD) }),
    stillEncodeMs: numberValue('still-encode-ms', option('still-encode-ms', '12.5'), { min: 0, max: 1000, minExclusive: true }, 'ms'),
    salsify1StartS: optional('salsify-1-start-s', (text) => numberValue('salsify-1-start-s', text, { min: 0, max: PAPER_WARMUP_S, minExclusive: true }, 's')),
    others: nameListValue('others', option('others', 'att-lte,on-off'), PRESET_NAMES),
    video: option('video', '../shared/video/FourPeople_1280x720_60.ivf'),
  };
}

/** The clip's first frame, still, for `stillFrames` frames, then the clip from its first frame; `stills` learns every still picture handed out. */
function prerollSource(clip: VideoSource, still: Picture, stillFrames: number, stills: WeakSet<Picture>, onFrame: (index: number) => void): VideoSource {
  return {
    description: `${clip.description} after ${stillFrames} frames of its first, still`,
    width: clip.width, height: clip.height, fps: clip.fps, frameCount: undefined,
    frame: async (index) => {
      onFrame(index);
      if (index >= stillFrames) return clip.frame(index - stillFrames);
      const picture = { width: still.width, height: still.height, data: still.data.slice() };
      stills.add(picture);
      return picture;
    },
    close: async () => {},
  };
}

/** The model codec, except that an inter frame of a still picture is `frameBytes` long (its header, padded) whatever the quantizer. */
function stillAwareCodec(model: FunctionalCodec, stills: WeakSet<Picture>, frameBytes: number): FunctionalCodec {
  return {
    ...model,
    encode: async (state, picture, quantizer) => {
      const result = await model.encode(state, picture, quantizer);
      if (result.keyFrame || !stills.has(picture)) return result;
      const frame = new Uint8Array(frameBytes);
      frame.set(result.frame.subarray(0, Math.min(frameBytes, result.frame.length)));
      return { ...result, frame };
    },
  };
}

/** Salsify-1 that skips every frame before `startMs`: a fresh sender from then on (nothing sent, so nothing acknowledged). */
function startingAt(startMs: number, frameIntervalMs: number): SenderScheme {
  const inner = createScheme('salsify-1', {
    initialQuantizer: 64, betterStep: BETTER_STEP, worseStep: WORSE_STEP, maxSkips: DEFAULT_MAX_SKIPS, frameIntervalMs, maxPayload: REFERENCE_FRAGMENT_PAYLOAD,
  });
  return { ...inner, choose: (encoded, view) => (view.now < startMs ? 'skip' : inner.choose(encoded, view)) };
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

function meanDelayCaptured(frames: readonly FrameRecord[], fromS: number, toS: number): number {
  return mean(frames.filter((f) => f.captureMs >= fromS * 1000 && f.captureMs < toS * 1000).map((f) => f.signalDelayMs));
}

interface Row {
  preset: string;
  scheme: 'salsify-1' | 'salsify-2' | 'salsify-4';
  preroll: boolean;
  startS?: number;
  /** false: without the preset's other traffic on the downlink. */
  otherTraffic: boolean;
}

async function runRow(row: Row, o: Options): Promise<string> {
  const model = await openCodec('model');
  const clip = await openVideo(o.video, 1);
  try {
    const stills = new WeakSet<Picture>();
    let encoding = 0;
    const stillFrames = row.preroll ? Math.round(PAPER_WARMUP_S * clip.fps) : 0;
    // The sender fetches a frame just before it times that frame's encodings: the timing knows which picture it is.
    const source = prerollSource(clip, await clip.frame(0), stillFrames, stills, (index) => { encoding = index; });
    const frameBytes = o.stillWireBytes - CELLSIM_OVERHEAD_BYTES - FRAGMENT_OVERHEAD_BYTES;
    const hooks: RunHooks = {
      codec: stillAwareCodec(model, stills, frameBytes),
      source,
      encodeMs: (w, h, q, key) => (encoding < stillFrames ? o.stillEncodeMs * (key ? KEY_FRAME_ENCODE_FACTOR : 1) : paperEncodeMs(w, h, q, key)),
      ...(row.startS === undefined ? {} : { scheme: startingAt(row.startS * 1000, 1000 / clip.fps) }),
    };
    const without = row.otherTraffic ? {} : { downlinkOtherTraffic: null };
    const run = await runSalsifySim({ preset: row.preset, scheme: row.scheme, codec: 'model', encodeTiming: 'paper', video: o.video, ...without }, hooks);
    const d = run.summary.signalDelayMs;
    const parts = [row.preroll ? 'pre-roll' : '', row.startS === undefined ? '' : `sender from ${row.startS} s`, row.otherTraffic ? '' : 'no other traffic'].filter((p) => p !== '');
    const variant = parts.length === 0 ? 'as the preset' : parts.join(', ');
    return `${row.preset.padEnd(12)} ${row.scheme.padEnd(9)} ${variant.padEnd(38)} ${d.mean.toFixed(0).padStart(5)} / ${d.p5.toFixed(0).padStart(3)} / ${d.p95.toFixed(0).padStart(5)}   ${meanDelayCaptured(run.frames, 62, 80).toFixed(0).padStart(5)}`;
  } finally {
    await clip.close();
    await model.close();
  }
}

let options: Options;
try {
  options = parseOptions();
} catch (error) {
  console.error(`bench/salsify-preroll.ts: ${(error as Error).message}`);
  process.exit(2);
}
const rows: Row[] = [];
const variants = (preset: string, scheme: Row['scheme']) => {
  for (const otherTraffic of [false, true]) for (const preroll of [false, true]) rows.push({ preset, scheme, preroll, otherTraffic });
};
if (options.rows !== 'others') {
  for (const scheme of ['salsify-1', 'salsify-2', 'salsify-4'] as const) variants('tmobile-umts', scheme);
  if (options.salsify1StartS !== undefined) for (const otherTraffic of [false, true]) rows.push({ preset: 'tmobile-umts', scheme: 'salsify-1', preroll: true, startS: options.salsify1StartS, otherTraffic });
}
if (options.rows !== 'tmobile') for (const preset of options.others) variants(preset, 'salsify-1');
console.log(`still picture: ${options.stillWireBytes} bytes on the wire per inter frame, ${options.stillEncodeMs} ms per encoding; model codec, paper timing, window [62, 702) s`);
console.log(`scenario     scheme    ${'variant'.padEnd(38)} mean / p5 / p95 ms   [62, 80) s mean ms`);
for (const row of rows) console.log(await runRow(row, options));
