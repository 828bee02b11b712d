// The `salsify` command. `salsify sim` runs Salsify (or the conventional
// baseline) in the deterministic simulator over emulated links and prints a
// results table; per-frame records and JSON results go where asked.
import { join } from 'node:path';
import { asksForVersion, closestName } from '../common/command-line.ts';
import { duringSetup, inContext, runCommand, usageError } from '../common/errors.ts';
import {
  durationMsValue, formatHelp, frameRateValue, LIMITS, nameListValue, nameValue, noPositionals, optional, outputFileValue, parseCommandLine, pathValue, probabilityValue, rateValue, refuseOutputsOverInputs, required, seedValue, type NamedFile,
} from '../common/validate.ts';
import { openTrace, traceFile } from '../link-emu/trace-files.ts';
import { framesToCsv, summariesToCsv } from '../results/csv.ts';
import { jsonText, runToJson } from '../results/json.ts';
import { createWorkProgress } from '../eval/progress.ts';
import { capturedVideoS } from '../eval/run-list.ts';
import { summaryMarks } from '../results/marks.ts';
import { reportingSource } from '../salsify/reporting-source.ts';
import { formatResultsTable } from '../results/table.ts';
import { makeResultsDirectory, writeResultsFile } from '../results/writer.ts';
import { CODECS, openCodec, openVideo } from '../salsify/open-inputs.ts';
import { FRAME_CLOCKS } from '../salsify/sender.ts';
import { PRESET_NAMES, simPreset } from '../salsify/presets.ts';
import { LOSS_PLACES } from '../link-emu/path.ts';
import { SCHEME_NOTES, SIM_SCHEME_NAMES, schemeRowLabel } from '../salsify/schemes/registry.ts';
import { DEFAULT_SIM_CONFIG, resolveSimConfig, runSalsifySim, type SalsifySimConfig, type SalsifySimInput, type SalsifySimResult } from '../salsify/sim-runner.ts';
import { ENCODE_TIMINGS } from '../salsify/timing-model.ts';
import { otherTrafficOption } from './other-traffic-option.ts';
import { DEFAULT_OVERHEAD_BYTES } from '../net/sim-network.ts';
import { STDIO, writeOutputFile, writeStderr, writeStdout } from './files.ts';
import { queueOption } from './queue-option.ts';
import { codecNames, DEFAULT_CODEC, DEFAULT_SCHEME, schemeNames, wrapWords } from './help-names.ts';
import { exitOnStandardStreamErrors } from '../common/standard-streams.ts';
import { WIDE_OPTION, wideHelpRow } from './table-options.ts';

const COMMANDS = new Set(['sim', 'send', 'receive', 'analyze', 'eval', 'webrtc']);

export const SALSIFY_HELP = formatHelp({
  usage: ['salsify sim --downlink TRACE --uplink TRACE [options]', 'salsify sim --preset NAME [options]'],
  about: `Runs Salsify's sender and receiver in the deterministic simulator (virtual
time: the same options and seed give the same results), the video on the
downlink trace and the acknowledgements on the uplink trace, and prints
signal delay, SSIM, frames shown/skipped, bytes sent and link utilisation.`,
  options: [
    ['--preset NAME', wrapWords(`one of the Salsify paper's scenarios: ${PRESET_NAMES.join(', ')} (trace, 20 ms delay, queue, loss, on/off, 1514-byte opportunities, 702 s measured over [62, 702) s; verizon-lte and buffer-N run Verizon-LTE-driving when the trace lookup finds it, e.g. with LINKSHELL_TRACES=DIR, else Verizon-LTE-short as a stand-in); every other option still overrides it`)],
    ['--downlink TRACE', 'downlink trace: a file or a name found in ./traces,\n$LINKSHELL_TRACES or /usr/share/mahimahi/traces;\nor const:MBPS for a constant rate (e.g. const:2;\nMBPS > 0, at most 100000)'],
    ['--uplink TRACE', 'uplink trace (same forms)'],
    ['--scheme LIST', wrapWords(`${SIM_SCHEME_NAMES.join(', ')}, or several joined by commas to compare them (default ${DEFAULT_SCHEME}; oracle and oracle-quality, simulator-only, know the link's future (delay-first and quality-first)${SCHEME_NOTES.map(([name, note]) => `; ${name}: ${note}`).join('')})`)],
    ['--queue KIND', 'mm-link queue of both links: infinite, droptail,\ndrophead, codel, pie (default droptail)'],
    ['--queue-args ARGS', "its arguments (default packets=256, the paper's setting)"],
    ['--delay MS', 'one-way propagation delay of each direction,\n0 to 60000 ms (default 0)'],
    ['--downlink-loss P', 'independent loss probability on the downlink, 0 to 1\n(default 0)'],
    ['--downlink-loss-at WHERE', "entry (before the queue, as mm-loss; the default) or\ndelivery (after the link, as Cellsim's loss: the wifi\npreset's)"],
    ['--uplink-loss P', 'the same on the uplink (default 0)'],
    ['--downlink-onoff ON,OFF', 'an intermittent downlink: mean on and off periods in\nms, each > 0 and at most 3600000 (exponential;\npackets sent while off are lost)'],
    ['--downlink-other-traffic R,B', "other traffic on the downlink beside the video:\nR bytes a second in packets of B bytes on the link\n(the link's overhead included), regularly spaced from\nthe start; or none (the default without --preset; the\npresets': 4000,100, the paper's bench's own traffic)"],
    ['--video SRC', 'synthetic (1280x720 at 60 fps, the default),\nsynthetic:WxH[@FPS], FILE.y4m, or FILE.ivf (VP8,\nread with the native decoder)'],
    ['--fps N', 'frames per second of the video, > 0 and at most 1000,\noverriding its own rate (an IVF file\'s is derived from\nits frame timestamps)'],
    ['--codec NAME', wrapWords(`${codecNames()} (default ${DEFAULT_CODEC}: the fast modelled codec)`)],
    ['--duration S', 'seconds of video captured, > 0 and at most 86400\n(default 10; 500ms, 2min also work)'],
    ['--drain MS', 'simulated time after the last capture, 0 to 3600000\n(default 2000)'],
    ['--measure-from S', 'the summary covers the source frames captured from S\nseconds on (default 0; 500ms, 1min also work)'],
    ['--measure-for S', '... for S seconds (default: to the last capture); a\nwindow that ends sooner ends the capture one drain\nafter it, and the run one drain later'],
    ['--encode-timing T', `modelled encode time: ${ENCODE_TIMINGS.join(' or ')} (default libvpx,\nmeasured here; paper: the paper's slower encoder,\n26 ms per 720p encoding, with its camera and\ndisplay: see --frame-clock, --display-refresh)`],
    ['--display-refresh HZ', "show each frame on the display's next refresh after\nits decode, HZ > 0 and at most 1000 (the paper's\nbench: 59.94, the default with --encode-timing paper;\notherwise shown when decoded)"],
    ['--budget MS', "the transport's delay budget, > 0 and at most 60000\n(default 100)"],
    ['--no-grace', 'no grace period in the inter-arrival estimate'],
    ['--no-conceal', 'the receiver abandons an incomplete frame and drops a\nframe whose source state it lacks, instead of decoding\nthem with concealment as alfalfa\'s receiver did'],
    ['--frame-clock NAME', "next-frame (the default: an encode takes the next\ncamera frame, waiting for it), newest-frame (the\nnewest frame already captured) or single-buffer (the\npaper's camera, the default with --encode-timing\npaper: an encode starts when a camera frame\ncompletes and takes the one before it, one encode\ncycle old)"],
    ['--seed N', 'seed of every random draw: an integer from 0 to\n2^53-1 (default 1)'],
    ['--json OUT.json', 'write {label, config, counters, bytesSent, link, endMs,\nsummary} (an array of them when several schemes run);\n-: to standard output (the table then goes to standard\nerror)'],
    ['--log-dir DIR', 'write DIR/SCHEME.frames.csv (one line per source frame:\nits fate, send, arrival and display times, size,\nquantizer, SSIM), DIR/SCHEME.json, and DIR/summary.csv\n(one line per scheme)'],
    wideHelpRow(),
    ['-h, --help', 'this text'],
  ],
  notes: `Frame fates: shown; never shown (arrived whole, not shown); lost (some
datagram never arrived); skipped (encoded, not sent: the sender's choice);
superseded (never encoded: replaced by a newer capture).

Exit status: 0 on success; 2 for a bad argument, a bad or unreadable input
file (trace, Y4M, IVF), an output that cannot be written or a missing VP8
addon, with one line on stderr naming it; 1 on an internal error.`,
});

const SIM_HELP_REF = 'salsify sim --help';

function traceOption(name: string, value: string | undefined): SalsifySimConfig['downlink'] {
  const text = required(name, value, 'TRACE', SIM_HELP_REF);
  const m = /^const:(.*)$/.exec(text);
  if (m) return { constantMbps: rateValue(name, m[1]!) };
  return text;
}

function onOffOption(text: string): SalsifySimConfig['downlinkOnOff'] {
  const parts = text.split(',');
  if (parts.length !== 2) throw usageError(`--downlink-onoff must be ON_MS,OFF_MS, got ${JSON.stringify(text)}`);
  const period = (part: string) => durationMsValue('downlink-onoff', part, { unit: 'ms', minExclusive: true, maxMs: LIMITS.maxPeriodMs });
  return { meanOnMs: period(parts[0]!), meanOffMs: period(parts[1]!) };
}

/** Parses `salsify sim` arguments into one config per scheme, and the output options. */
export function parseSimArgs(argv: string[]): { configs: Partial<SalsifySimConfig>[]; json?: string; logDir?: string; wide?: boolean; help: boolean } {
  const { values, positionals } = parseCommandLine('salsify sim --help', {
    args: argv,
    options: {
      downlink: { type: 'string' }, uplink: { type: 'string' }, scheme: { type: 'string' },
      queue: { type: 'string' }, 'queue-args': { type: 'string' }, delay: { type: 'string' },
      'downlink-loss': { type: 'string' }, 'downlink-loss-at': { type: 'string' }, 'uplink-loss': { type: 'string' }, 'downlink-onoff': { type: 'string' },
      'downlink-other-traffic': { type: 'string' }, video: { type: 'string' }, fps: { type: 'string' }, codec: { type: 'string' }, duration: { type: 'string' }, drain: { type: 'string' },
      budget: { type: 'string' }, 'no-grace': { type: 'boolean' }, 'no-conceal': { type: 'boolean' }, 'frame-clock': { type: 'string' }, seed: { type: 'string' },
      json: { type: 'string' }, 'log-dir': { type: 'string' }, ...WIDE_OPTION, help: { type: 'boolean', short: 'h' },
      preset: { type: 'string' }, 'measure-from': { type: 'string' }, 'measure-for': { type: 'string' }, 'encode-timing': { type: 'string' }, 'display-refresh': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { configs: [], help: true };
  noPositionals(positionals, SIM_HELP_REF);
  const schemes = nameListValue('scheme', values.scheme ?? DEFAULT_SCHEME, SIM_SCHEME_NAMES);
  const preset = optional(values.preset, (t) => nameValue('preset', t, PRESET_NAMES));
  const fromPreset = preset === undefined ? undefined : simPreset(preset).config;
  // Without a preset the simulator's defaults apply; with one, what it sets. Only options given override it.
  const orDefault = <T>(value: T | undefined, fallback: T): T | undefined => value ?? (fromPreset ? undefined : fallback);
  const queue = values.queue ?? fromPreset?.queue ?? DEFAULT_SIM_CONFIG.queue;
  const queueArgs = values['queue-args'] ?? (values.queue === undefined ? fromPreset?.queueArgs ?? DEFAULT_SIM_CONFIG.queueArgs : values.queue === 'droptail' ? DEFAULT_SIM_CONFIG.queueArgs : '');
  queueOption('queue', queue, queueArgs);
  const seconds = (name: string, text: string) => durationMsValue(name, text, { unit: 's', maxMs: 1000 * LIMITS.maxRunS }) / 1000;
  const base: Partial<SalsifySimConfig> = {
    preset,
    downlink: fromPreset && values.downlink === undefined ? undefined : traceOption('downlink', values.downlink),
    uplink: fromPreset && values.uplink === undefined ? undefined : traceOption('uplink', values.uplink),
    queue,
    queueArgs,
    delayMs: orDefault(optional(values.delay, (t) => durationMsValue('delay', t, { unit: 'ms', maxMs: LIMITS.maxDelayMs })), 0),
    downlinkLoss: orDefault(optional(values['downlink-loss'], (t) => probabilityValue('downlink-loss', t)), 0),
    downlinkLossAt: optional(values['downlink-loss-at'], (t) => nameValue('downlink-loss-at', t, LOSS_PLACES)),
    uplinkLoss: orDefault(optional(values['uplink-loss'], (t) => probabilityValue('uplink-loss', t)), 0),
    downlinkOnOff: orDefault(optional(values['downlink-onoff'], onOffOption), null),
    downlinkOtherTraffic: optional(values['downlink-other-traffic'], (t) => otherTrafficOption(t, fromPreset?.overheadBytes ?? DEFAULT_OVERHEAD_BYTES)),
    video: optional(values.video, (t) => pathValue('video', t)) ?? 'synthetic',
    fps: optional(values.fps, (t) => frameRateValue('fps', t)) ?? null,
    codec: nameValue('codec', values.codec ?? DEFAULT_CODEC, CODECS),
    durationS: orDefault(optional(values.duration, (t) => durationMsValue('duration', t, { unit: 's', minExclusive: true, maxMs: 1000 * LIMITS.maxRunS }) / 1000), DEFAULT_SIM_CONFIG.durationS),
    drainMs: optional(values.drain, (t) => durationMsValue('drain', t, { unit: 'ms', maxMs: LIMITS.maxPeriodMs })) ?? DEFAULT_SIM_CONFIG.drainMs,
    budgetMs: optional(values.budget, (t) => durationMsValue('budget', t, { unit: 'ms', minExclusive: true, maxMs: LIMITS.maxDelayMs })) ?? DEFAULT_SIM_CONFIG.budgetMs,
    grace: !values['no-grace'],
    conceal: values['no-conceal'] ? false : undefined,
    frameClock: optional(values['frame-clock'], (t) => nameValue('frame-clock', t, FRAME_CLOCKS)),
    seed: seedValue('seed', values.seed ?? '1'),
    measureFromS: optional(values['measure-from'], (t) => seconds('measure-from', t)),
    measureForS: optional(values['measure-for'], (t) => durationMsValue('measure-for', t, { unit: 's', minExclusive: true, maxMs: 1000 * LIMITS.maxRunS }) / 1000),
    encodeTiming: optional(values['encode-timing'], (t) => nameValue('encode-timing', t, ENCODE_TIMINGS)),
    displayRefreshHz: optional(values['display-refresh'], (t) => frameRateValue('display-refresh', t)),
  };
  const configs = schemes.map((scheme) => {
    const given = Object.fromEntries(Object.entries({ ...base, scheme }).filter(([, v]) => v !== undefined)) as SalsifySimInput;
    try {
      return resolveSimConfig(given);
    } catch (error) {
      // The one check that spans options: the window must lie within the run.
      throw usageError(`${(error as Error).message.replace(/^salsify sim config: measureFromS/, '--measure-from')} (see ${SIM_HELP_REF})`);
    }
  });
  const json = optional(values.json, (t) => outputFileValue('json', t));
  const logDir = optional(values['log-dir'], (t) => pathValue('log-dir', t));
  if (logDir === STDIO) throw usageError('--log-dir names a directory; "-" (standard output) is not one');
  refuseOutputsOverInputs(simOutputs(json, logDir, schemes), simInputs(configs));
  return { configs, json, logDir, wide: values.wide === true, help: false };
}

/** The files a run writes: --json, and --log-dir's per scheme and summary. */
function simOutputs(json: string | undefined, logDir: string | undefined, schemes: readonly string[]): NamedFile[] {
  const files: NamedFile[] = json === undefined ? [] : [{ role: '--json', path: json }];
  if (logDir === undefined) return files;
  const names = [...schemes.flatMap((s) => [`${s}.frames.csv`, `${s}.json`]), 'summary.csv'];
  return [...files, ...names.map((name) => ({ role: '--log-dir', path: join(logDir, name) }))];
}

/** The files a run reads: its trace files and its video file. */
function simInputs(configs: readonly Partial<SalsifySimConfig>[]): NamedFile[] {
  const c = configs[0];
  if (c === undefined) return [];
  const files: NamedFile[] = [];
  for (const [role, link] of [['--downlink', c.downlink], ['--uplink', c.uplink]] as const) if (typeof link === 'string') files.push({ role, path: traceFile(link) });
  if (c.video !== undefined && !/^synthetic(:|$)/.test(c.video)) files.push({ role: '--video', path: c.video });
  return files;
}

function output(result: SalsifySimResult) {
  return runToJson(result, result.summary);
}

/** Opens the traces a run names, so that a bad one is reported as the input error it is before anything runs. */
function checkTraces(configs: readonly Partial<SalsifySimConfig>[]): void {
  const names = new Set<string>();
  for (const c of configs) for (const link of [c.downlink, c.uplink]) if (typeof link === 'string') names.add(link);
  for (const name of names) duringSetup(() => openTrace(name));
}

/** The run line's words for the downlink's other traffic, or nothing without it. */
function otherTrafficWords(t: SalsifySimConfig['downlinkOtherTraffic']): string {
  return t ? `other traffic on the downlink ${t.bytesPerS} B/s in ${t.packetBytes}-byte packets, ` : '';
}

export async function runSim(argv: string[]): Promise<number> {
  const args = parseSimArgs(argv);
  if (args.help) {
    process.stdout.write(SALSIFY_HELP);
    return 0;
  }
  checkTraces(args.configs);
  if (args.logDir !== undefined) makeResultsDirectory(args.logDir, '--log-dir');
  const runs: { result: SalsifySimResult; wallMs: number }[] = [];
  const configs = args.configs as SalsifySimConfig[];
  // On a terminal, a bar per scheme in seconds of video, with an estimate of what is left (src/eval/progress.ts).
  const progress = createWorkProgress(configs.map((c, i) => ({ key: i, label: c.scheme, units: capturedVideoS(c) })), { unit: 's of video', noun: 'runs' });
  try {
    for (const [index, config] of configs.entries()) {
      const started = performance.now();
      // The video is opened here (as runSalsifySim would), so that every failure of the named file is an input error.
      const source = await openVideo(config.video, config.seed, { fps: config.fps ?? undefined }).catch((error: unknown) => {
        throw inContext('--video', error);
      });
      let result: SalsifySimResult;
      try {
        const codec = await openCodec(config.codec);
        try {
          progress.started(index);
          result = await runSalsifySim(config, { codec, source: reportingSource(source, (s) => progress.progress(index, s)) });
          progress.done(index);
        } finally {
          await codec.close();
        }
      } finally {
        await source.close();
      }
      const wallMs = performance.now() - started;
      runs.push({ result, wallMs });
      if (args.logDir !== undefined) {
        writeResultsFile(join(args.logDir, `${result.config.scheme}.frames.csv`), framesToCsv(result.frames));
        writeResultsFile(join(args.logDir, `${result.config.scheme}.json`), jsonText(output(result)));
      }
    }
  } finally {
    progress.finish();
  }
  const rows = runs.map(({ result, wallMs }) => ({ label: result.label, summary: result.summary, wallMs }));
  if (args.logDir !== undefined) writeResultsFile(join(args.logDir, 'summary.csv'), summariesToCsv(rows));
  if (args.json !== undefined) {
    const body = runs.length === 1 ? output(runs[0].result) : runs.map((r) => output(r.result));
    await writeOutputFile(args.json, jsonText(body));
  }
  // With --json - the JSON is standard output's: the table goes to standard error.
  const say = args.json === STDIO ? writeStderr : writeStdout;
  const first = runs[0].result.config;
  const describe = (l: SalsifySimConfig['downlink']) => (typeof l === 'string' ? l : `const:${l.constantMbps}`);
  const window = runs[0].result.window;
  if (first.preset !== undefined) await say(`preset ${first.preset}: ${simPreset(first.preset).label}\n`);
  if (window) await say(`measured over the source frames captured in [${window.fromMs / 1000}, ${window.toMs / 1000}) s\n`);
  await say(
    `downlink ${describe(first.downlink)}, uplink ${describe(first.uplink)}, queue ${first.queue} [${first.queueArgs}], ` +
      `delay ${first.delayMs} ms, ${otherTrafficWords(first.downlinkOtherTraffic)}video ${first.video}, codec ${first.codec}, ${first.durationS} s, encode timing ${first.encodeTiming ?? 'libvpx'}` +
      `${first.frameClock === undefined ? '' : `, frame clock ${first.frameClock}`}${first.displayRefreshHz === undefined ? '' : `, display refresh ${first.displayRefreshHz} Hz`}, seed ${first.seed}\n`,
  );
  await say(formatResultsTable(rows.map((r) => ({ ...r, label: schemeRowLabel(r.label), marks: summaryMarks(r.summary) })), { wide: args.wide }) + '\n');
  return 0;
}

export const SALSIFY_COMMANDS = `Usage: salsify COMMAND [options]

Commands:
  salsify sim --downlink TRACE --uplink TRACE [...]   run in the deterministic simulator (see salsify sim --help)
  salsify send --to HOST:PORT [--video SRC] [...]    send over UDP (see salsify send --help)
  salsify receive --port P --out DIR [...]           receive over UDP (see salsify receive --help)
  salsify analyze DIR [--json OUT] [...]             figures of a live run (see salsify analyze --help)
  salsify webrtc --downlink TRACE --uplink TRACE [...]  a Chromium (or Firefox) WebRTC call over linkshell (see salsify webrtc --help)
  salsify eval [--scenarios LIST] [--schemes LIST] [...]  the whole evaluation, in parallel and cached (see salsify eval --help)
  salsify --version                                  the versions of salsify, Node, libvpx, Chromium and Firefox in use
`;

export async function main(argv: string[]): Promise<number> {
  if (asksForVersion(argv)) return (await import('./version.ts')).printVersion('salsify', { libvpx: true, chromium: true, firefox: true });
  const [command, ...rest] = argv;
  exitOnStandardStreamErrors(COMMANDS.has(command ?? '') ? `salsify ${command}` : 'salsify');
  if (command === 'sim') return runCommand('salsify sim', () => runSim(rest));
  if (command === 'send') return runCommand('salsify send', async () => (await import('./salsify-send.ts')).runSendCommand(rest));
  if (command === 'receive') return runCommand('salsify receive', async () => (await import('./salsify-receive.ts')).runReceiveCommand(rest));
  if (command === 'analyze') return runCommand('salsify analyze', async () => (await import('./salsify-analyze.ts')).runAnalyze(rest));
  if (command === 'eval') return runCommand('salsify eval', async () => (await import('./eval-command.ts')).runEval(rest));
  if (command === 'webrtc') return runCommand('salsify webrtc', async () => (await import('./webrtc-command.ts')).runWebrtc(rest));
  if (command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(SALSIFY_COMMANDS);
    return 0;
  }
  const closest = command === undefined ? undefined : closestName(command, ['sim', 'send', 'receive', 'analyze', 'webrtc', 'eval']);
  const problem = command === undefined ? 'a COMMAND is required' : `unknown command ${JSON.stringify(command)}${closest ? `; did you mean ${closest}?` : ''}`;
  return runCommand('salsify', () => {
    throw usageError(`${problem} (sim, send, receive, analyze, webrtc or eval; see salsify --help)`);
  });
}
