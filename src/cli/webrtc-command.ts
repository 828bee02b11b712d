// `salsify webrtc`: a real WebRTC call between two headless browsers
// (Chromium, or Firefox with --browser firefox) over coturn and linkshell,
// measured frame by frame (src/webrtc/).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileErrorReason, inContext, toolkitError, usageError } from '../common/errors.ts';
import {
  durationMsValue, formatHelp, integerValue, LIMITS, nameValue, noPositionals, optional, parseCommandLine, pathValue, probabilityValue, rateValue, refuseOutputsOverInputs, required, seedValue, type NamedFile,
} from '../common/validate.ts';
import { queueOption } from './queue-option.ts';
import { loadTrace, resolveTraceName, traceFile as traceFileOf } from '../link-emu/trace-files.ts';
import { formatTrace } from '../link-emu/trace-format.ts';
import { constantRateTrace } from '../link-emu/trace-generators.ts';
import { rotateTrace } from '../link-emu/trace-rotate.ts';
import { PRESET_NAMES, simPreset } from '../salsify/presets.ts';
import { LOSS_PLACES } from '../link-emu/path.ts';
import { onOffValue } from './mahimahi-flags.ts';
import { createWorkProgress } from '../eval/progress.ts';
import { summaryMarks, validityMarks } from '../results/marks.ts';
import type { Validity } from '../results/validity.ts';
import { formatResultsTable } from '../results/table.ts';
import { runWebrtcBench } from '../webrtc/bench.ts';
import type { CallOptions, WebrtcCodec } from '../webrtc/call.ts';
import { findPrerequisites } from '../webrtc/prerequisites.ts';
import { BROWSER_KINDS } from '../webrtc/browser.ts';
import { CALL_PATHS, pathUsesNetns } from '../webrtc/paths.ts';
import { netnsUnavailable } from '../netns/prerequisites.ts';
import { runSalsifyEndpoint, type SalsifyEndpointOptions } from '../webrtc/salsify-endpoint.ts';
import { CODECS as SALSIFY_CODECS, openVideo } from '../salsify/open-inputs.ts';
import { SCHEMES } from '../salsify/sender.ts';
import { schemeNames, wrapWords } from './help-names.ts';
import { makeDirectory, writeFileAtomically } from '../results/writer.ts';
import { WIDE_OPTION, wideHelpRow } from './table-options.ts';
import type { CallScenario } from '../webrtc/scenario.ts';

const DEFAULT_CLIP = fileURLToPath(new URL('../../../shared/video/FourPeople_1280x720_60.ivf', import.meta.url));
const HELP_REF = 'salsify webrtc --help';

export const WEBRTC_HELP = formatHelp({
  usage: ['salsify webrtc --downlink TRACE --uplink TRACE [options]', 'salsify webrtc --preset NAME [--trace-start S] [options]'],
  about: `Runs a real WebRTC call between two headless Chromium browsers (Debian's
chromium, driven by puppeteer-core; or Debian's firefox-esr with --browser
firefox) through coturn on 127.0.0.1, with
linkshell between the sending browser and coturn: the video crosses the
downlink trace, the receiver's feedback the uplink trace, as in the paper.
Measures every source frame black-box (barcodes in the picture): signal
delay, SSIM of what was shown (VP8 decoded with our own decoder, VP9 and
AV1 with ffmpeg), getStats.
One call at a time: a 360p30 call takes about 0.3 of a core.`,
  options: [
    ['--preset NAME', wrapWords(`one of the Salsify paper's scenarios (as salsify sim): ${PRESET_NAMES.join(', ')}: its traces, delay, queue, loss, on/off, MTU and overhead (not its 702 s window: the call lasts --duration; nor its other traffic on the downlink, 4 kB/s that salsify sim sends beside the video: linkshell carries only the call; wifi's 4.8 % loss applies at delivery, after the link, as the paper's); every option below still overrides it`)],
    ['--trace-start S', 'replay both traces from their second S (whole ms,\n0 to 86400; default 0): linkshell holds the traces\nuntil the media\'s first packet (RTP for a browser,\nthe first datagram for a Salsify endpoint), which\nmeets trace second S (summary.json: traceStartS,\nfirstMediaAtTraceS)'],
    ['--downlink TRACE', "the video direction's trace: a file or a name found\nin ./traces, $LINKSHELL_TRACES or\n/usr/share/mahimahi/traces; or const:MBPS for a\nconstant rate (e.g. const:2)"],
    ['--uplink TRACE', "the feedback direction's trace (same forms)"],
    ['--queue KIND', 'queue of both directions: infinite, droptail,\ndrophead, codel, pie (default droptail)'],
    ['--queue-args ARGS', 'its arguments (default packets=256, as salsify sim)'],
    ['--delay MS', 'one-way delay of each direction, whole ms from 0 to\n60000 (default 0)'],
    ['--downlink-loss P', 'loss probability of the video direction, 0 to 1\n(default 0)'],
    ['--downlink-loss-at WHERE', "where the video direction's loss applies: entry\n(before the queue, as mm-loss; the default) or delivery\n(after the link, as Cellsim's: the wifi preset's)"],
    ['--uplink-loss P', 'loss probability of the feedback direction (default 0)'],
    ['--path NAME', 'how the media goes: turn-udp (the default: both\nbrowsers relayed by coturn, the sender through\nlinkshell over UDP), turn-tcp (the sender inside\nlinkshell --netns, TURN over TCP only, UDP dropped)\nor p2p (the sender inside linkshell --netns, direct\nUDP); turn-tcp and p2p need root'],
    ['--loss P', 'random loss of both directions, 0 to 1 (instead of\n--downlink-loss and --uplink-loss)'],
    ['--downlink-onoff ON,OFF', 'intermittent video direction (as salsify sim and\nmm-onoff): mean on and off times in ms'],
    ['--mtu N', 'bytes per delivery opportunity (default linkshell\'s 1504;\nthe presets: 1514, as the paper\'s Cellsim)'],
    ['--overhead N', 'link bytes per datagram beyond its payload (default\nlinkshell\'s; the presets: 42, Ethernet + IPv4 + UDP)'],
    ['--seed N', "seed of linkshell's random draws: an integer from 0 to\n2^53-1 (default 1)"],
    ['--video SRC', "the camera's clip: FILE.y4m, FILE.ivf (VP8) or\nsynthetic (default\n../shared/video/FourPeople_1280x720_60.ivf when\npresent, otherwise synthetic); scaled, looped forward\nand backward, each frame stamped with its number"],
    ['--clip-cache DIR', 'where prepared camera clips are kept between calls,\nnamed by a hash of the source\'s content, size and rate\n(default $XDG_CACHE_HOME or ~/.cache, then\nlowlat-video-toolkit/webrtc-clips; at most 2 GiB kept)'],
    ['--size WxH', 'camera size, even, from 80x48 to 3840x2160\n(default 640x360)'],
    ['--fps N', 'camera frame rate, 1 to 60 (default 30)'],
    ['--codec NAME', 'vp8, vp9 or av1, forced with setCodecPreferences\n(default vp8); SSIM: vp8 decoded by our decoder, vp9\nand av1 by ffmpeg (libvpx, dav1d: as Chromium)'],
    ['--svc MODE', 'scalability mode, e.g. L1T3, or L2T3 with vp9 or av1'],
    ['--duration S', 'seconds of the call measured once connected, > 0\nand at most 86400 (default 30)'],
    ['--measure-from S', "the summary covers the source frames captured from S\nseconds after the media's first packet (trace second\n--trace-start) on, below --duration (default: the\nwhole call; the paper's window: 62)"],
    ['--measure-for S', "... for S seconds (default: to the call's end; the\npaper's window: 640)"],
    ['--drain MS', 'the call goes on this long after the last frame\ncounted, 0 to 60000 (default 2000)'],
    ['--browser NAME', "chromium (the default) or firefox (Debian's\nfirefox-esr, driven over WebDriver BiDi; its camera\nis its sender page drawing the clip on a canvas;\n--path turn-udp only)"],
    ['--endpoint NAME', `chromium (the default), or a Salsify scheme\n(${schemeNames()}):\nour live salsify send and salsify receive instead\nof the browsers and coturn, over the same linkshell\npath, with the same clip`],
    ['--salsify-codec NAME', 'the codec of a Salsify endpoint: vp8 (the default)\nor model'],
    ['--out DIR', 'where the results go (default webrtc-out)'],
    wideHelpRow(),
    ['-h, --help', 'this text'],
  ],
  notes: `Writes DIR/summary.json (summary, config, browser version, getStats totals
and time series, and the call's validity: valid, or invalid with its reasons
when the machine starved it: CPU pressure, camera frames lost, frames not
encoded, display callbacks missed, linkshell late; also printed), DIR/frames.csv (one line per source frame), DIR/received.ivf,
DIR/sender-stats.jsonl and DIR/receiver-stats.jsonl (raw getStats every 500 ms),
DIR/video-link.log and DIR/feedback-link.log (linkshell's mm-link logs) and
DIR/linkshell.txt; prints a results table. With a Salsify --endpoint:
DIR/summary.json (with endpoint and scheme), DIR/frames.csv, DIR/sender.jsonl,
DIR/receiver.jsonl, DIR/received.ivf (vp8), the link logs and DIR/linkshell.txt;
chromium and coturn are not needed. VP9 and AV1 need ffmpeg (their SSIM).
SALSIFY_CHROMIUM, SALSIFY_TURNSERVER and SALSIFY_FFMPEG select other
binaries, and SALSIFY_FIREFOX another Firefox.

Exit status: 0 on success; 2 for a bad argument or input file, an output
that cannot be written, or a missing chromium (firefox-esr with --browser
firefox), coturn or ffmpeg (the line gives the apt command); 1 on an
internal error; 128 + N when signal N stopped it (everything it started is
stopped first).`,
});

const CODECS: readonly WebrtcCodec[] = ['vp8', 'vp9', 'av1'];
const ENDPOINTS: readonly string[] = ['chromium', ...SCHEMES];

/**
 * A trace option: a trace file (resolved as every command does), or const:MBPS
 * written as a trace file into `dir`; with a start offset, the trace from that
 * time on (rotateTrace) written into `dir`.
 */
function traceValue(name: string, text: string | undefined, dir: string, startMs = 0): string {
  const path = traceFile(name, text, dir);
  if (startMs === 0) return path;
  const rotated = (() => {
    try {
      return rotateTrace(loadTrace(path), startMs);
    } catch (error) {
      throw toolkitError('ERR_UNREADABLE_FILE', `--${name}: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}`);
    }
  })();
  const out = join(dir, `${name}-from-${startMs / 1000}s.trace`);
  try {
    writeFileAtomically(out, formatTrace(rotated));
  } catch (error) {
    throw toolkitError('ERR_UNWRITABLE_FILE', `cannot write ${out}: ${fileErrorReason(error, { writing: true })}`);
  }
  return out;
}

function traceFile(name: string, text: string | undefined, dir: string): string {
  const value = required(name, text, 'TRACE', HELP_REF);
  const m = /^const:(.*)$/.exec(value);
  if (m) {
    const trace = (() => {
      try {
        return constantRateTrace({ rateMbps: rateValue(name, m[1]!) });
      } catch (error) {
        throw inContext(`--${name}`, error);
      }
    })();
    const path = join(dir, `${name}-const-${m[1]}mbps.trace`);
    try {
      writeFileAtomically(path, formatTrace(trace));
    } catch (error) {
      throw toolkitError('ERR_UNWRITABLE_FILE', `cannot write ${path}: ${fileErrorReason(error, { writing: true })}`);
    }
    return path;
  }
  try {
    return resolve(resolveTraceName(value));
  } catch (error) {
    throw toolkitError('ERR_UNREADABLE_FILE', `--${name}: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}`);
  }
}

/** The files a call writes into DIR (see the help's notes), the trace files it makes among them. */
const OUTPUT_FILES = ['summary.json', 'frames.csv', 'received.ivf', 'sender-stats.jsonl', 'receiver-stats.jsonl', 'video-link.log', 'feedback-link.log', 'linkshell.txt', 'linkshell.json', 'sender.jsonl', 'receiver.jsonl'];

function webrtcOutputs(out: string, startMs: number, downlink: unknown, uplink: unknown): NamedFile[] {
  const traces = (['downlink', 'uplink'] as const).flatMap((name) => {
    const text = name === 'downlink' ? downlink : uplink;
    const made = typeof text === 'string' && text.startsWith('const:') ? [`${name}-const-${text.slice(6)}mbps.trace`] : [];
    return startMs > 0 ? [...made, `${name}-from-${startMs / 1000}s.trace`] : made;
  });
  return [...OUTPUT_FILES, ...traces].map((name) => ({ role: `--out ${out}`, path: join(out, name) }));
}

function sizeValue(text: string): { width: number; height: number } {
  const m = /^(\d{1,5})x(\d{1,5})$/.exec(text);
  const width = Number(m?.[1]);
  const height = Number(m?.[2]);
  if (!m || width < 80 || height < 48 || width > 3840 || height > 2160 || width % 2 !== 0 || height % 2 !== 0) {
    throw usageError(`--size must be WIDTHxHEIGHT, even, from 80x48 to 3840x2160, got ${JSON.stringify(text)}`);
  }
  return { width, height };
}

export interface WebrtcArgs {
  readonly help: boolean;
  readonly call?: Omit<CallOptions, 'signal' | 'log'>;
  /** Set instead of `call` for a Salsify --endpoint. */
  readonly salsify?: Omit<SalsifyEndpointOptions, 'signal' | 'log'>;
  /** Every column of the printed table. */
  readonly wide?: boolean;
}

export function parseWebrtcArgs(argv: string[]): WebrtcArgs {
  const { values, positionals } = parseCommandLine(HELP_REF, {
    args: argv,
    options: {
      preset: { type: 'string' }, downlink: { type: 'string' }, uplink: { type: 'string' },
      queue: { type: 'string' }, 'queue-args': { type: 'string' }, delay: { type: 'string' },
      'downlink-loss': { type: 'string' }, 'downlink-loss-at': { type: 'string' }, 'uplink-loss': { type: 'string' }, loss: { type: 'string' }, path: { type: 'string' }, seed: { type: 'string' },
      video: { type: 'string' }, 'clip-cache': { type: 'string' }, size: { type: 'string' }, fps: { type: 'string' }, codec: { type: 'string' }, svc: { type: 'string' },
      duration: { type: 'string' }, 'measure-from': { type: 'string' }, 'measure-for': { type: 'string' }, drain: { type: 'string' }, endpoint: { type: 'string' }, browser: { type: 'string' }, 'salsify-codec': { type: 'string' }, out: { type: 'string' },
      'trace-start': { type: 'string' }, 'downlink-onoff': { type: 'string' }, mtu: { type: 'string' }, overhead: { type: 'string' },
      ...WIDE_OPTION, help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { help: true };
  noPositionals(positionals, HELP_REF);
  // A preset sets the path; only options given override it (the traces, each impairment).
  const preset = optional(values.preset, (t) => simPreset(nameValue('preset', t, PRESET_NAMES)).config);
  const traceStartMs = optional(values['trace-start'], (t) => durationMsValue('trace-start', t, { unit: 's', maxMs: 1000 * LIMITS.maxRunS, wholeMs: true })) ?? 0;
  const endpoint = nameValue('endpoint', values.endpoint ?? 'chromium', ENDPOINTS);
  const salsifyEndpoint = endpoint !== 'chromium';
  if (!salsifyEndpoint && values['salsify-codec'] !== undefined) throw usageError('--salsify-codec is for a Salsify --endpoint; Chromium takes --codec');
  if (salsifyEndpoint && values.codec !== undefined) throw usageError(`--codec is Chromium's; a Salsify --endpoint takes --salsify-codec vp8|model`);
  if (salsifyEndpoint && values.svc !== undefined) throw usageError(`--svc is Chromium's; a Salsify --endpoint has no scalable coding`);
  const browser = nameValue('browser', values.browser ?? 'chromium', BROWSER_KINDS);
  if (salsifyEndpoint && values.browser !== undefined) throw usageError(`--browser chooses the browsers of a WebRTC call; a Salsify --endpoint runs no browser`);
  const salsifyCodec = nameValue('salsify-codec', values['salsify-codec'] ?? 'vp8', SALSIFY_CODECS);
  const codec = nameValue('codec', values.codec ?? 'vp8', CODECS);
  const { width, height } = sizeValue(values.size ?? '640x360');
  const fps = optional(values.fps, (t) => integerValue('fps', t, { min: 1, max: 60 })) ?? 30;
  const svc = values.svc;
  if (svc !== undefined && !/^L[1-3]T[1-3](_KEY)?$/.test(svc)) throw usageError(`--svc must be a scalability mode such as L1T3 or L2T3, got ${JSON.stringify(svc)}`);
  if (svc !== undefined && codec === 'vp8' && !/^L1T[1-3]$/.test(svc)) throw usageError(`--svc ${svc}: VP8 has temporal layers only (L1T1 to L1T3); use --codec vp9 or av1`);
  const durationS = (optional(values.duration, (t) => durationMsValue('duration', t, { unit: 's', minExclusive: true, maxMs: 1000 * LIMITS.maxRunS })) ?? 30_000) / 1000;
  const drainMs = optional(values.drain, (t) => durationMsValue('drain', t, { unit: 'ms', maxMs: 60_000 })) ?? 2000;
  const measureFromS = optional(values['measure-from'], (t) => durationMsValue('measure-from', t, { unit: 's', maxMs: 1000 * LIMITS.maxRunS }) / 1000);
  const measureForS = optional(values['measure-for'], (t) => durationMsValue('measure-for', t, { unit: 's', minExclusive: true, maxMs: 1000 * LIMITS.maxRunS }) / 1000);
  if (measureFromS !== undefined && measureFromS >= durationS) throw usageError(`--measure-from must be below --duration (${durationS} s), got ${measureFromS} s (see ${HELP_REF})`);
  const delay = optional(values.delay, (t) => durationMsValue('delay', t, { unit: 'ms', maxMs: LIMITS.maxDelayMs, wholeMs: true })) ?? preset?.delayMs;
  const loss = optional(values.loss, (t) => probabilityValue('loss', t));
  if (loss !== undefined && (values['downlink-loss'] !== undefined || values['uplink-loss'] !== undefined)) throw usageError('--loss sets both directions: give it, or --downlink-loss and --uplink-loss, not both');
  const downlinkLoss = optional(values['downlink-loss'], (t) => probabilityValue('downlink-loss', t)) ?? loss ?? preset?.downlinkLoss;
  const uplinkLoss = optional(values['uplink-loss'], (t) => probabilityValue('uplink-loss', t)) ?? loss;
  const downlinkLossAt = optional(values['downlink-loss-at'], (t) => nameValue('downlink-loss-at', t, LOSS_PLACES)) ?? preset?.downlinkLossAt;
  const onOff = onOffValue('downlink-onoff', values['downlink-onoff']) ?? preset?.downlinkOnOff;
  const mtu = optional(values.mtu, (t) => integerValue('mtu', t, { min: 1, max: 65535 + 64 })) ?? preset?.mtu;
  const overhead = optional(values.overhead, (t) => integerValue('overhead', t, { min: 0, max: 4096 })) ?? preset?.overheadBytes;
  const path = nameValue('path', values.path ?? 'turn-udp', CALL_PATHS);
  if (salsifyEndpoint && values.path !== undefined) throw usageError(`--path is the Chromium call's; a Salsify --endpoint runs over linkshell's UDP relay`);
  if (browser === 'firefox' && pathUsesNetns(path)) throw usageError(`--path ${path} runs the sending browser inside a network namespace, where Firefox cannot be driven (puppeteer reaches it over a WebSocket on the namespace's own 127.0.0.1); --browser firefox takes --path turn-udp`);
  if (pathUsesNetns(path)) {
    const unavailable = netnsUnavailable();
    if (unavailable !== undefined) throw toolkitError('ERR_UNAVAILABLE', `--path ${path} runs the sender inside linkshell --netns: ${unavailable}`);
  }
  const seed = optional(values.seed, (t) => seedValue('seed', t));
  const queue = values.queue ?? preset?.queue ?? 'droptail';
  const queueArgs = values['queue-args'] ?? (values.queue === undefined && preset ? preset.queueArgs : queue === 'droptail' ? 'packets=256' : '');
  queueOption('queue', queue, queueArgs);
  let video = values.video ?? (existsSync(DEFAULT_CLIP) ? DEFAULT_CLIP : 'synthetic');
  if (video !== 'synthetic') {
    pathValue('video', video);
    if (!/\.(y4m|ivf)$/i.test(video)) throw usageError(`--video must be FILE.y4m, FILE.ivf or synthetic, got ${JSON.stringify(video)}`);
    if (!existsSync(video)) throw toolkitError('ERR_UNREADABLE_FILE', `--video ${video}: no such file`);
    video = resolve(video);
  }
  const downlink = required('downlink', values.downlink ?? preset?.downlink, 'TRACE', HELP_REF);
  const uplink = required('uplink', values.uplink ?? preset?.uplink, 'TRACE', HELP_REF);
  // Before anything is written: a missing chromium or coturn is one line naming the apt command.
  const programs = salsifyEndpoint
    ? undefined
    : findPrerequisites(
        { chromium: process.env.SALSIFY_CHROMIUM || undefined, firefox: process.env.SALSIFY_FIREFOX || undefined, turnserver: process.env.SALSIFY_TURNSERVER || undefined, ffmpeg: process.env.SALSIFY_FFMPEG || undefined },
        { ffmpeg: codec !== 'vp8', browser },
      );
  const out = resolve(pathValue('out', values.out ?? 'webrtc-out'));
  refuseOutputsOverInputs(webrtcOutputs(out, traceStartMs, values.downlink ?? preset?.downlink, values.uplink ?? preset?.uplink), [
    video === 'synthetic' ? undefined : { role: '--video', path: video },
    ...(['downlink', 'uplink'] as const).map((name) => {
      const text = values[name] ?? preset?.[name];
      return typeof text !== 'string' || text.startsWith('const:') ? undefined : { role: `--${name}`, path: traceFileOf(text) };
    }),
  ]);
  try {
    makeDirectory(out);
  } catch (error) {
    throw toolkitError('ERR_UNWRITABLE_FILE', `--out: cannot create ${out}: ${fileErrorReason(error, { writing: true })}`);
  }
  const videoTrace = traceValue('downlink', downlink, out, traceStartMs);
  const feedbackTrace = traceValue('uplink', uplink, out, traceStartMs);
  // The scenario's downlink (the video) is linkshell's uplink: what the sending browser sends.
  const extra = ['--uplink-queue', queue, '--downlink-queue', queue];
  if (queueArgs !== '') extra.push('--uplink-queue-args', queueArgs, '--downlink-queue-args', queueArgs);
  if (delay !== undefined) extra.push('--delay', String(delay));
  if (downlinkLoss !== undefined) extra.push('--uplink-loss', String(downlinkLoss));
  if (downlinkLossAt !== undefined) extra.push('--uplink-loss-at', downlinkLossAt);
  if (uplinkLoss !== undefined) extra.push('--downlink-loss', String(uplinkLoss));
  if (onOff !== undefined) extra.push('--uplink-onoff', `${onOff.meanOnMs},${onOff.meanOffMs}`);
  if (mtu !== undefined) extra.push('--mtu', String(mtu));
  if (overhead !== undefined) extra.push('--overhead', String(overhead));
  if (seed !== undefined) extra.push('--seed', String(seed));
  const scenario: CallScenario = {
    preset: preset?.preset ?? null,
    traceStartS: traceStartMs / 1000,
    ...(measureFromS === undefined ? {} : { measureFromS }),
    ...(measureForS === undefined ? {} : { measureForS }),
  };
  const clipCacheDir = values['clip-cache'] === undefined ? undefined : resolve(pathValue('clip-cache', values['clip-cache']));
  if (salsifyEndpoint) {
    const scheme = nameValue('endpoint', endpoint, SCHEMES);
    return {
      help: false, wide: values.wide === true,
      salsify: { scheme, codec: salsifyCodec, video, clipCacheDir, width, height, fps, durationS, drainMs, videoTrace, feedbackTrace, linkshellArgs: extra, scenario, out },
    };
  }
  return {
    help: false, wide: values.wide === true,
    call: { programs: programs!, path, video, clipCacheDir, width, height, fps, codec, scalabilityMode: svc, durationS, drainMs, videoTrace, feedbackTrace, linkshellArgs: extra, scenario, out },
  };
}

/**
 * The call's progress on a terminal (src/eval/progress.ts): from the line
 * that says the media flows ("connected ...", "salsify send ..."), seconds of
 * the call against its length; the command's log lines above the bar.
 * Without a terminal, the log lines only.
 */
function callProgress(durationS: number): { log: (line: string) => void; finish: () => void } {
  const progress = createWorkProgress([{ key: 0, label: 'the call', units: durationS }], { unit: 's', noun: 'calls' });
  let timer: NodeJS.Timeout | undefined;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    if (timer) clearInterval(timer);
    progress.done(0);
    progress.finish();
  };
  const log = (line: string) => {
    progress.log(`salsify webrtc: ${line}`);
    if (timer === undefined && /^(connected|salsify send)/.test(line)) {
      const from = performance.now();
      progress.started(0);
      timer = setInterval(() => progress.progress(0, Math.min(durationS, (performance.now() - from) / 1000)), 1000);
      timer.unref();
    }
  };
  return { log, finish };
}

/** A corrupt --video file is one line naming it (exit 2) before anything starts: its header, every VP8 frame tag of an IVF, its first picture. */
async function checkVideo(video: string): Promise<void> {
  if (video === 'synthetic') return;
  const source = await openVideo(video).catch((error: unknown) => {
    throw inContext('--video', error);
  });
  try {
    await source.frame(0).catch((error: unknown) => {
      throw inContext('--video', error);
    });
  } finally {
    await source.close();
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_STATUS: Record<(typeof SIGNALS)[number], number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

export async function runWebrtc(argv: string[]): Promise<number> {
  const args = parseWebrtcArgs(argv);
  if (args.help || (!args.call && !args.salsify)) {
    process.stdout.write(WEBRTC_HELP);
    return 0;
  }
  await checkVideo(args.call?.video ?? args.salsify!.video);
  const controller = new AbortController();
  let caught: (typeof SIGNALS)[number] | undefined;
  const onSignal = (signal: (typeof SIGNALS)[number]) => {
    if (caught !== undefined) process.exit(SIGNAL_STATUS[signal]); // a second signal: stop waiting (children die with us)
    caught = signal;
    process.stderr.write(`salsify webrtc: ${signal}: stopping the call\n`);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  const call = callProgress(args.call?.durationS ?? args.salsify!.durationS);
  try {
    const started = performance.now();
    if (args.salsify) {
      const c = args.salsify;
      const { analysis, validity } = await runSalsifyEndpoint({ ...c, signal: controller.signal, log: call.log });
      call.finish();
      process.stdout.write(
        `salsify ${c.scheme} (${c.codec} codec); video ${c.video} at ${c.width}x${c.height} ${c.fps} fps; downlink ${c.videoTrace}, uplink ${c.feedbackTrace}; ` +
          `${c.durationS} s in ${((performance.now() - started) / 1000).toFixed(1)} s; results in ${c.out}\n`,
      );
      process.stdout.write(formatResultsTable([{ label: `${analysis.label} ${c.codec}`, summary: analysis.summary, wallMs: performance.now() - started, marks: [...summaryMarks(analysis.summary), ...validityMarks(validity)] }], { wide: args.wide }) + '\n');
      for (const note of analysis.notes) process.stdout.write(`note: ${note}\n`);
      process.stdout.write(formatVerdictLine(validity));
      return 0;
    }
    const result = await runWebrtcBench({
      ...args.call!,
      signal: controller.signal,
      log: call.log,
    });
    call.finish();
    const c = args.call!;
    process.stdout.write(
      `${result.browser}; video ${c.video} at ${c.width}x${c.height} ${c.fps} fps; downlink ${c.videoTrace}, uplink ${c.feedbackTrace}; ` +
        `${c.durationS} s in ${((performance.now() - started) / 1000).toFixed(1)} s; results in ${c.out}\n`,
    );
    const label = `${result.label} ${c.codec}${c.scalabilityMode ? `-${c.scalabilityMode}` : ''}`;
    process.stdout.write(formatResultsTable([{ label, summary: result.summary, wallMs: performance.now() - started, marks: [...summaryMarks(result.summary), ...validityMarks(result.validity)] }], { wide: args.wide }) + '\n');
    process.stdout.write(formatVerdictLine(result.validity));
    return 0;
  } catch (error) {
    if (caught !== undefined) {
      process.stderr.write(`salsify webrtc: stopped by ${caught}; everything it started has ended\n`);
      return SIGNAL_STATUS[caught];
    }
    throw error;
  } finally {
    call.finish();
    for (const s of SIGNALS) process.off(s, onSignal);
  }
}

/** The run's verdict as the command's last line. */
function formatVerdictLine(validity: Validity): string {
  return validity.verdict === 'valid' ? 'verdict: valid\n' : `verdict: INVALID (the machine's figures, not the call's): ${validity.reasons.join('; ')}\n`;
}
