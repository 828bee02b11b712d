// linkshell replay: re-runs a recorded offered load on an emulated link.

import { DEFAULT_MTU, PacketTooLargeError } from '../link-emu/link.ts';
import { LinkLogWriter, parseLinkLog, requireEvents } from '../link-emu/link-log.ts';
import { createQueue } from '../link-emu/queue-factory.ts';
import { createRng } from '../common/random.ts';
import { arrivalsFromLog, lastLogTime, parseArrivalList, replay } from '../link-emu/replay.ts';
import { openTrace, traceFile } from '../link-emu/trace-files.ts';
import { duringSetup, toolkitError } from '../common/errors.ts';
import {
  formatHelp, integerValue, noPositionals, optional, parseCommandLine, pathValue, refuseOutputsOverInputs, required, seedValue,
} from '../common/validate.ts';
import { LinkLogFile } from '../linkshell/log-file.ts';
import { inputName, readInputFile, writeStdout } from './files.ts';

export const REPLAY_HELP = formatHelp({
  usage: ['linkshell replay --log-in IN --trace TRACE [options]'],
  about: `Feeds the arrivals of IN (the "+" lines of an mm-link log, or a plain file of
"TIME SIZE" lines) through an emulated link and writes the mm-link log that
link produces. Replaying a log that Mahimahi wrote reproduces its "#", "-" and
"d" lines exactly, and so does replaying a log linkshell wrote, PIE's random
drops included: the log records the seed the link's queue drew from. (Drops
at linkshell's memory cap, "d" lines with no arrival, are not re-run: those
datagrams never reached the link.)`,
  options: [
    ['--log-in FILE', 'the recorded load (mm-link log, or TIME SIZE lines; -:\nstandard input)'],
    ['--trace TRACE', 'the link\'s trace (a path, or a name found in ./traces,\n$LINKSHELL_TRACES or /usr/share/mahimahi/traces)'],
    ['--queue TYPE', 'infinite | droptail | drophead | codel | pie\n(default infinite)'],
    ['--queue-args ARGS', 'e.g. "packets=100,bytes=30000"'],
    ['--mtu N', `bytes per delivery opportunity, 1 to ${1 << 20} (default ${DEFAULT_MTU})`],
    ['--once', 'stop delivering when the trace ends'],
    ['--base-timestamp MS', 'where the trace\'s time zero lies (default: the input\nlog\'s "# base timestamp:", else 0)'],
    ['--until MS', 'keep using opportunities up to MS (default: the input\nlog\'s last time; for a TIME SIZE file, until the queue\ndrains)'],
    ['--seed N', 'seed of PIE\'s random drops, an integer from 0 to 2^53-1\n(default: the link\'s seed that the input log records,\nas linkshell writes it, so a live run replays exactly;\nelse 1)'],
    ['--log FILE', 'write the log here (default, or -: standard output)'],
    ['-h, --help', 'this text'],
  ],
});

export async function runReplay(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine('linkshell replay --help', {
    args: argv,
    options: {
      'log-in': { type: 'string' },
      trace: { type: 'string' },
      queue: { type: 'string', default: 'infinite' },
      'queue-args': { type: 'string', default: '' },
      mtu: { type: 'string' },
      once: { type: 'boolean', default: false },
      'base-timestamp': { type: 'string' },
      until: { type: 'string' },
      seed: { type: 'string' },
      log: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    await writeStdout(REPLAY_HELP);
    return 0;
  }
  noPositionals(positionals, 'linkshell replay --help');
  const input = required('log-in', values['log-in'], 'FILE', 'linkshell replay --help');
  const traceName = required('trace', values.trace, 'TRACE', 'linkshell replay --help');
  const mtu = optional(values.mtu, (t) => integerValue('mtu', t, { min: 1, max: 1 << 20 })) ?? DEFAULT_MTU;
  const until = optional(values.until, (t) => integerValue('until', t, { min: 0, max: Number.MAX_SAFE_INTEGER }));
  const base = optional(values['base-timestamp'], (t) => integerValue('base-timestamp', t, { min: 0, max: Number.MAX_SAFE_INTEGER }));
  const seed = optional(values.seed, (t) => String(seedValue('seed', t)));
  if (values.log !== undefined) pathValue('log', values.log);
  // --log - is standard output, as no --log.
  const logFile = values.log === '-' ? undefined : values.log;
  refuseOutputsOverInputs([logFile === undefined ? undefined : { role: '--log', path: logFile }], [{ role: '--log-in', path: input }, { role: '--trace', path: traceFile(traceName) }]);

  const { trace, queue, log, arrivals, linkSeed } = duringSetup(() => {
    const trace = openTrace(traceName);
    const text = readInputFile(input);
    // An mm-link log's first event line reads "TIME KIND ..."; a plain list's reads "TIME SIZE".
    const firstEvent = /^[^#\r\n].*$/m.exec(text)?.[0] ?? '';
    const isLog = text.startsWith('# mahimahi') || /^\d+ [+#d-] /.test(firstEvent);
    const log = isLog ? requireEvents(parseLinkLog(text, inputName(input))) : undefined;
    const arrivals = log ? arrivalsFromLog(log) : parseArrivalList(text, inputName(input));
    // The seed the recorded link's queue drew from (linkshell logs it), unless --seed says otherwise.
    const recorded = log?.header.stageSeeds.find((s) => s.kind === 'link');
    const linkSeed = { stage: recorded?.stage ?? 0, kind: 'link' as const, seed: seed ?? recorded?.seed ?? '1' };
    const queue = createQueue<null>(values.queue!, values['queue-args']!, createRng(linkSeed.seed));
    return { trace, queue, log, arrivals, linkSeed };
  });
  const baseTimestamp = base ?? log?.header.baseTimestamp ?? 0;

  const header = {
    linkName: log?.header.linkName ?? 'Uplink',
    traceName,
    logName: logFile ?? '/dev/stdout',
    commandLine: ['linkshell', 'replay', ...argv],
    queue: queue.describe(),
    initTimestamp: log?.header.initTimestamp ?? 0,
    baseTimestamp,
  };
  // --log FILE is opened before the replay runs (a directory or a missing directory is reported at once) and
  // written as the replay goes; a failed write (a full disk) is one line naming the file. Without --log the
  // log is collected and written to standard output at the end.
  const file = logFile === undefined ? undefined : duringSetup(() => new LinkLogFile(logFile, header));
  const chunks: string[] = [];
  const writer = file?.writer ?? new LinkLogWriter((chunk) => chunks.push(chunk), header);
  try {
    writer.stageSeed(linkSeed);
    replay({
      arrivals,
      trace,
      queue,
      mtu,
      once: values.once,
      baseTimestamp,
      until: until ?? (log ? lastLogTime(log) : undefined),
      events: writer,
    });
    if (file) file.close();
    else writer.close();
  } catch (error) {
    try {
      file?.close();
    } catch {
      // The first error is the one to report.
    }
    if (error instanceof PacketTooLargeError) throw toolkitError('ERR_BAD_INPUT', `${input}: an arrival of ${error.size} bytes is larger than the link's MTU of ${error.mtu} bytes (--mtu)`);
    throw error;
  }
  if (!file) await writeStdout(chunks.join(''));
  return 0;
}
