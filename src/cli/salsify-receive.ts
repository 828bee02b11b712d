// `salsify receive`'s front end: its options and help, turned into the typed
// ReceiveArgs that src/salsify/live/receive.ts runs.
import { usageError } from '../common/errors.ts';
import { durationMsValue, formatHelp, LIMITS, nameValue, noPositionals, optional, parseCommandLine, portValue, required } from '../common/validate.ts';
import { runReceive, type ReceiveArgs } from '../salsify/live/receive.ts';
import { CODECS } from '../salsify/open-inputs.ts';
import { codecNames, DEFAULT_CODEC, wrapWords } from './help-names.ts';

export const RECEIVE_HELP = formatHelp({
  usage: ['salsify receive --port P --out DIR [options]'],
  about: `Runs the Salsify receiver on a UDP port for one run of \`salsify send\`:
decodes and shows frames, acknowledges every datagram, and records per shown
frame its show time and frame number in DIR/receiver.jsonl (times on a clock
shared by processes on one machine: see salsify send --help). It serves the
first address it hears from; start it before the sender.`,
  options: [
    ['--port P', 'UDP port to listen on, 0 to 65535 (0: any free port,\nprinted)'],
    ['--bind HOST', 'address to listen on (default 127.0.0.1; 0.0.0.0 for\nsenders on other machines)'],
    ['--out DIR', 'where receiver.jsonl (and received.ivf, received.y4m)\ngo (required; created if needed)'],
    ['--codec NAME', wrapWords(`the sender's codec: ${codecNames()} (default ${DEFAULT_CODEC}, whose decodes take their modelled time)`)],
    ['--save-video', 'also write every shown picture to DIR/received.y4m\n(raw I420: 83 MB per second of 720p60). Not needed for\nSSIM: with vp8 the receiver keeps every shown frame\'s\ncompressed bytes (DIR/received.ivf), which salsify\nanalyze decodes again; the model codec\'s SSIM is\nrecorded as it goes'],
    ['--idle-timeout S', 'stop once no datagram came for S seconds (> 0, at most\n3600) after a run started (default 3)'],
    ['-h, --help', 'this text'],
  ],
  notes: `SIGINT, SIGTERM or SIGHUP, at any moment (even while the program loads), stops
it cleanly (records ended, exit 0); a second one ends the records and exits at
once. Exit status: 0 on success, 2 for a bad argument or records that cannot
be written, 1 otherwise. Once created, receiver.jsonl ends with an end record
however the run ends (SIGKILL aside: then the records up to it, whole).`,
});

export function parseReceiveArgs(argv: string[]): { help: true } | { help: false; args: ReceiveArgs } {
  const { values, positionals } = parseCommandLine('salsify receive --help', {
    args: argv,
    options: {
      port: { type: 'string' }, bind: { type: 'string' }, out: { type: 'string' }, codec: { type: 'string' },
      'save-video': { type: 'boolean' }, 'idle-timeout': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { help: true };
  noPositionals(positionals, 'salsify receive --help');
  const port = portValue('port', required('port', values.port, 'P (0 for any free port)', 'salsify receive --help'));
  const out = required('out', values.out, 'DIR', 'salsify receive --help');
  const bind = values.bind ?? '127.0.0.1';
  if (bind === '' || /[\s[\]]/.test(bind)) throw usageError(`--bind must be a host name or IP address, got ${JSON.stringify(bind)}`);
  return {
    help: false,
    args: {
      port,
      bind,
      out,
      codec: nameValue('codec', values.codec ?? DEFAULT_CODEC, CODECS),
      saveVideo: values['save-video'] ?? false,
      idleTimeoutMs: optional(values['idle-timeout'], (t) => durationMsValue('idle-timeout', t, { unit: 's', minExclusive: true, maxMs: LIMITS.maxPeriodMs })) ?? 3000,
    },
  };
}

export async function runReceiveCommand(argv: string[]): Promise<number> {
  const parsed = parseReceiveArgs(argv);
  if (parsed.help) {
    process.stdout.write(RECEIVE_HELP);
    return 0;
  }
  return runReceive(parsed.args);
}
