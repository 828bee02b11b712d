// `salsify send`'s front end: its options and help, turned into the typed
// SendArgs that src/salsify/live/send.ts runs.
import { join } from 'node:path';
import { usageError } from '../common/errors.ts';
import { SENDER_RECORDS } from '../salsify/live/records.ts';
import { durationMsValue, formatHelp, frameRateValue, LIMITS, nameValue, noPositionals, optional, parseCommandLine, refuseOutputsOverInputs, seedValue } from '../common/validate.ts';
import { parseHostPort } from '../net/address.ts';
import { TIMER_KINDS } from '../net/wall-clock.ts';
import { runSend, type SendArgs } from '../salsify/live/send.ts';
import { CODECS } from '../salsify/open-inputs.ts';
import { SCHEMES } from '../salsify/sender.ts';
import { codecNames, DEFAULT_CODEC, DEFAULT_SCHEME, schemeNames, wrapWords } from './help-names.ts';

export const SEND_HELP = formatHelp({
  usage: ['salsify send --to HOST:PORT [options]'],
  about: `Runs the Salsify sender over UDP towards a \`salsify receive\`: captures the
video at its frame rate (like a webcam: the newest frame at each capture
instant), encodes and sends it, and records every capture, frame sent or
skipped, quantizer and size in OUT/sender.jsonl. Times are on a clock shared by
processes on one machine (ms since the epoch): run the receiver on the same
machine, or on one whose clock is synchronised with this one.`,
  options: [
    ['--to HOST:PORT', 'the receiver (or linkshell\'s listen address); default\n$LINKSHELL_ADDR when run as linkshell\'s command'],
    ['--video SRC', 'synthetic (1280x720 at 60 fps, the default),\nsynthetic:WxH[@FPS], FILE.y4m, or FILE.ivf (VP8)'],
    ['--fps N', 'frames per second of the video, > 0 and at most 1000,\noverriding its own rate (an IVF file\'s is derived from\nits frame timestamps)'],
    ['--scheme NAME', wrapWords(`one of ${schemeNames()} (default ${DEFAULT_SCHEME})`)],
    ['--codec NAME', wrapWords(`${codecNames()} (default ${DEFAULT_CODEC}: the simulator's modelled codec, its encodings taking their modelled time)`)],
    ['--duration S', 'seconds of video to capture, > 0 and at most 86400\n(default: until a signal; 500ms, 2min also work)'],
    ['--drain MS', 'after the last capture, wait at most this long (0 to\n3600000 ms) for the frames in flight to be acknowledged\n(default 1000)'],
    ['--budget MS', 'the transport\'s delay budget, > 0 and at most 60000\n(default 100)'],
    ['--seed N', 'seed of the synthetic video: an integer from 0 to\n2^53-1 (default 1)'],
    ['--out DIR', 'where sender.jsonl goes (default .; created if needed)'],
    ['--run-id HEX', 'the run id (8 hex digits; default: derived from the\nseed, process id and start time)'],
    ['--transport udp|tcp', 'udp (the default), or tcp: the datagrams length-prefixed\nover one TCP connection to a relay at --to that sends\nthem on as UDP (TURN over TCP\'s head-of-line blocking)'],
    ['--timer thread|timeout', 'how datagram pacing is timed (default thread)'],
    ['-h, --help', 'this text'],
  ],
  notes: `SIGINT, SIGTERM or SIGHUP, at any moment (even while the program loads), stops
the run cleanly (records ended, exit 0); a second one ends the records and
exits at once. Exit status: 0 on success, 2 for a bad argument or input file
or records that cannot be written, 1 otherwise. Once created (when the inputs
are open), sender.jsonl ends with an end record however the run ends (SIGKILL
aside: then the records up to it, whole).`,
});

export function parseSendArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): { help: true } | { help: false; args: SendArgs } {
  const { values, positionals } = parseCommandLine('salsify send --help', {
    args: argv,
    options: {
      to: { type: 'string' }, video: { type: 'string' }, fps: { type: 'string' }, scheme: { type: 'string' }, codec: { type: 'string' },
      duration: { type: 'string' }, drain: { type: 'string' }, budget: { type: 'string' }, seed: { type: 'string' },
      out: { type: 'string' }, 'run-id': { type: 'string' }, timer: { type: 'string' }, transport: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { help: true };
  noPositionals(positionals, 'salsify send --help');
  const to = values.to ?? env.LINKSHELL_ADDR;
  if (to === undefined || to === '') throw usageError('--to HOST:PORT is required (or run inside linkshell, which sets $LINKSHELL_ADDR)');
  try {
    parseHostPort(to, '--to');
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const runId = values['run-id'];
  if (runId !== undefined && !/^[0-9a-fA-F]{8}$/.test(runId)) throw usageError(`--run-id must be 8 hex digits, got ${JSON.stringify(runId)}`);
  const out = values.out ?? '.';
  const video = values.video ?? 'synthetic';
  refuseOutputsOverInputs([{ role: '--out', path: join(out, SENDER_RECORDS) }], [/^synthetic(:|$)/.test(video) ? undefined : { role: '--video', path: video }]);
  return {
    help: false,
    args: {
      to,
      video,
      fps: optional(values.fps, (t) => frameRateValue('fps', t)),
      scheme: nameValue('scheme', values.scheme ?? DEFAULT_SCHEME, SCHEMES),
      codec: nameValue('codec', values.codec ?? DEFAULT_CODEC, CODECS),
      durationS: optional(values.duration, (t) => durationMsValue('duration', t, { unit: 's', minExclusive: true, maxMs: 1000 * LIMITS.maxRunS }) / 1000) ?? null,
      drainMs: optional(values.drain, (t) => durationMsValue('drain', t, { unit: 'ms', maxMs: LIMITS.maxPeriodMs })) ?? 1000,
      budgetMs: optional(values.budget, (t) => durationMsValue('budget', t, { unit: 'ms', minExclusive: true, maxMs: LIMITS.maxDelayMs })) ?? 100,
      seed: seedValue('seed', values.seed ?? '1'),
      out,
      connectionId: runId === undefined ? undefined : Number.parseInt(runId, 16),
      timer: nameValue('timer', values.timer ?? 'thread', TIMER_KINDS),
      transport: nameValue('transport', values.transport ?? 'udp', ['udp', 'tcp'] as const),
    },
  };
}

export async function runSendCommand(argv: string[]): Promise<number> {
  const parsed = parseSendArgs(argv);
  if (parsed.help) {
    process.stdout.write(SEND_HELP);
    return 0;
  }
  return runSend(parsed.args);
}
