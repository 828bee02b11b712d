// The `salsify` command. `salsify sim` runs Salsify (or the conventional
// baseline) in the deterministic simulator over emulated links and prints a
// results table; per-frame records and JSON results go where asked.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCommand, UsageError } from '../common/usage-error.ts';
import { framesToCsv, summariesToCsv } from '../results/csv.ts';
import { jsonText, runToJson } from '../results/json.ts';
import { formatResultsTable } from '../results/table.ts';
import { makeResultsDirectory, writeResultsFile } from '../results/writer.ts';
import { SCHEMES, type Scheme } from './sender.ts';
import { DEFAULT_SIM_CONFIG, runSalsifySim, type SalsifySimConfig, type SalsifySimResult } from './sim-runner.ts';

export const SALSIFY_HELP = `Usage: salsify sim --downlink TRACE --uplink TRACE [options]

Runs Salsify's sender and receiver in the deterministic simulator (virtual
time: the same options and seed give the same results), the video on the
downlink trace and the acknowledgements on the uplink trace, and prints
signal delay, SSIM, frames shown/skipped, bytes sent and link utilisation.

Options:
  --downlink TRACE      downlink trace: a file or a name found in ./traces,
                        $LINKSHELL_TRACES or /usr/share/mahimahi/traces;
                        or const:MBPS for a constant rate (e.g. const:2)
  --uplink TRACE        uplink trace (same forms)
  --scheme LIST         salsify-1, salsify-2, conventional, or several joined
                        by commas to compare them (default salsify-1)
  --queue KIND          mm-link queue of both links: infinite, droptail,
                        drophead, codel, pie (default droptail)
  --queue-args ARGS     its arguments (default packets=256, the paper's setting)
  --delay MS            one-way propagation delay of each direction (default 0)
  --downlink-loss P     independent loss probability on the downlink (default 0)
  --uplink-loss P       the same on the uplink (default 0)
  --downlink-onoff ON,OFF  an intermittent downlink: mean on and off periods in
                        ms (exponential; packets sent while off are lost)
  --video SRC           synthetic (1280x720 at 60 fps, the default),
                        synthetic:WxH[@FPS], FILE.y4m, or FILE.ivf (VP8, read with the native decoder)
  --codec NAME          model (fast modelled codec, the default) or vp8
  --duration S          seconds of video captured (default 10)
  --drain MS            simulated time after the last capture (default 2000)
  --budget MS           the transport's delay budget (default 100)
  --no-grace            no grace period in the inter-arrival estimate
  --seed N              seed of every random draw (default 1)
  --json OUT.json       write {label, config, counters, bytesSent, link, endMs,
                        summary} (an array of them when several schemes run)
  --log-dir DIR         write DIR/SCHEME.frames.csv (one line per source frame:
                        its fate, send, arrival and display times, size,
                        quantizer, SSIM), DIR/SCHEME.json, and DIR/summary.csv
                        (one line per scheme)

Frame fates: shown; never shown (arrived whole, not shown); lost (some
datagram never arrived); skipped (encoded, not sent: the sender's choice);
superseded (never encoded: replaced by a newer capture).
  -h, --help            this text

Exit status: 0 on success, 2 for a bad argument or input file, 1 otherwise.
`;

function number(name: string, value: string | undefined, check: (n: number) => boolean, want: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !check(n)) throw new UsageError(`--${name} must be ${want}, got ${JSON.stringify(value)}`);
  return n;
}

function traceOption(name: string, value: string | undefined): SalsifySimConfig['downlink'] {
  if (value === undefined || value === '') throw new UsageError(`--${name} TRACE is required (see salsify sim --help)`);
  const m = /^const:(.+)$/.exec(value);
  if (m) return { constantMbps: number(name, m[1], (n) => n > 0, 'const:MBPS with MBPS > 0')! };
  return value;
}

/** Parses `salsify sim` arguments into one config per scheme, and the output options. */
export function parseSimArgs(argv: string[]): { configs: Partial<SalsifySimConfig>[]; json?: string; logDir?: string; help: boolean } {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      downlink: { type: 'string' }, uplink: { type: 'string' }, scheme: { type: 'string' },
      queue: { type: 'string' }, 'queue-args': { type: 'string' }, delay: { type: 'string' },
      'downlink-loss': { type: 'string' }, 'uplink-loss': { type: 'string' }, 'downlink-onoff': { type: 'string' },
      video: { type: 'string' }, codec: { type: 'string' }, duration: { type: 'string' }, drain: { type: 'string' },
      budget: { type: 'string' }, 'no-grace': { type: 'boolean' }, seed: { type: 'string' },
      json: { type: 'string' }, 'log-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { configs: [], help: true };
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (see salsify sim --help)`);
  const schemes = (values.scheme ?? 'salsify-1').split(',');
  for (const s of schemes) if (!SCHEMES.includes(s as Scheme)) throw new UsageError(`--scheme: unknown scheme ${JSON.stringify(s)} (expected ${SCHEMES.join(', ')})`);
  const codec = values.codec ?? 'model';
  if (codec !== 'model' && codec !== 'vp8') throw new UsageError(`--codec must be model or vp8, got ${JSON.stringify(codec)}`);
  let onOff: SalsifySimConfig['downlinkOnOff'] = null;
  if (values['downlink-onoff'] !== undefined) {
    const parts = values['downlink-onoff'].split(',');
    if (parts.length !== 2) throw new UsageError(`--downlink-onoff must be ON_MS,OFF_MS, got ${JSON.stringify(values['downlink-onoff'])}`);
    onOff = {
      meanOnMs: number('downlink-onoff', parts[0], (n) => n > 0, 'ON_MS,OFF_MS with both > 0')!,
      meanOffMs: number('downlink-onoff', parts[1], (n) => n > 0, 'ON_MS,OFF_MS with both > 0')!,
    };
  }
  const seedText = values.seed ?? '1';
  const seed = /^\d+$/.test(seedText) ? Number(seedText) : seedText;
  const base: Partial<SalsifySimConfig> = {
    downlink: traceOption('downlink', values.downlink),
    uplink: traceOption('uplink', values.uplink),
    queue: values.queue ?? DEFAULT_SIM_CONFIG.queue,
    queueArgs: values['queue-args'] ?? (values.queue === undefined || values.queue === 'droptail' ? DEFAULT_SIM_CONFIG.queueArgs : ''),
    delayMs: number('delay', values.delay, (n) => n >= 0, 'a number of ms >= 0') ?? 0,
    downlinkLoss: number('downlink-loss', values['downlink-loss'], (n) => n >= 0 && n <= 1, 'a probability in [0, 1]') ?? 0,
    uplinkLoss: number('uplink-loss', values['uplink-loss'], (n) => n >= 0 && n <= 1, 'a probability in [0, 1]') ?? 0,
    downlinkOnOff: onOff,
    video: values.video ?? 'synthetic',
    codec,
    durationS: number('duration', values.duration, (n) => n > 0, 'a number of seconds > 0') ?? DEFAULT_SIM_CONFIG.durationS,
    drainMs: number('drain', values.drain, (n) => n >= 0, 'a number of ms >= 0') ?? DEFAULT_SIM_CONFIG.drainMs,
    budgetMs: number('budget', values.budget, (n) => n > 0, 'a number of ms > 0') ?? DEFAULT_SIM_CONFIG.budgetMs,
    grace: !values['no-grace'],
    seed,
  };
  return { configs: schemes.map((scheme) => ({ ...base, scheme: scheme as Scheme })), json: values.json, logDir: values['log-dir'], help: false };
}

function output(result: SalsifySimResult) {
  return runToJson(result, result.summary);
}

export async function runSim(argv: string[]): Promise<number> {
  const args = parseSimArgs(argv);
  if (args.help) {
    process.stdout.write(SALSIFY_HELP);
    return 0;
  }
  if (args.logDir !== undefined) makeResultsDirectory(args.logDir, '--log-dir');
  const runs: { result: SalsifySimResult; wallMs: number }[] = [];
  for (const config of args.configs) {
    const started = performance.now();
    let result: SalsifySimResult;
    try {
      result = await runSalsifySim(config as SalsifySimConfig);
    } catch (error) {
      // Configuration and input problems (unknown trace, bad video file, bad queue arguments) are usage errors.
      const message = (error as Error).message;
      if (error instanceof RangeError || error instanceof TypeError || /cannot (read|open)|not found|no such file|unknown|queue/i.test(message)) throw new UsageError(message);
      throw error;
    }
    const wallMs = performance.now() - started;
    runs.push({ result, wallMs });
    if (args.logDir !== undefined) {
      writeResultsFile(join(args.logDir, `${result.config.scheme}.frames.csv`), framesToCsv(result.frames));
      writeResultsFile(join(args.logDir, `${result.config.scheme}.json`), jsonText(output(result)));
    }
  }
  const rows = runs.map(({ result, wallMs }) => ({ label: result.label, summary: result.summary, wallMs }));
  if (args.logDir !== undefined) writeResultsFile(join(args.logDir, 'summary.csv'), summariesToCsv(rows));
  if (args.json !== undefined) {
    const body = runs.length === 1 ? output(runs[0].result) : runs.map((r) => output(r.result));
    writeResultsFile(args.json, jsonText(body));
  }
  const first = runs[0].result.config;
  const describe = (l: SalsifySimConfig['downlink']) => (typeof l === 'string' ? l : `const:${l.constantMbps}`);
  process.stdout.write(
    `downlink ${describe(first.downlink)}, uplink ${describe(first.uplink)}, queue ${first.queue} [${first.queueArgs}], ` +
      `delay ${first.delayMs} ms, video ${first.video}, codec ${first.codec}, ${first.durationS} s, seed ${first.seed}\n`,
  );
  process.stdout.write(formatResultsTable(rows) + '\n');
  return 0;
}

export const SALSIFY_COMMANDS = `Usage: salsify COMMAND [options]

Commands:
  salsify sim --downlink TRACE --uplink TRACE [...]   run in the deterministic simulator (see salsify sim --help)
  salsify send --to HOST:PORT [--video SRC] [...]    send over UDP (see salsify send --help)
  salsify receive --port P --out DIR [...]           receive over UDP (see salsify receive --help)
  salsify analyze DIR [--json OUT] [...]             figures of a live run (see salsify analyze --help)
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'sim') return runCommand('salsify sim', () => runSim(rest));
  if (command === 'send' || command === 'receive' || command === 'analyze') {
    const { runLiveCommand } = await import('./live/commands.ts');
    return runLiveCommand(command, rest);
  }
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(SALSIFY_COMMANDS);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`salsify: unknown command ${JSON.stringify(command)}\n${SALSIFY_COMMANDS}`);
  return 2;
}
