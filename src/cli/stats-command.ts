// linkshell stats: summary figures of any mm-link log.

import Table from 'cli-table3';
import { parseLinkLog } from '../link-emu/link-log.ts';
import { linkLogStats, roundedStats, type DelayFigures, type LinkLogStats } from '../link-emu/log-stats.ts';
import { duringSetup, usageError } from '../common/errors.ts';
import { inputName, readInputFile, refuseStdinTwice, writeStdout } from './files.ts';
import { formatHelp, nameValue, parseCommandLine } from '../common/validate.ts';

export const STATS_HELP = formatHelp({
  usage: ['linkshell stats [--format table|json] LOG [LOG...]'],
  about: `Prints, for each mm-link log (Mahimahi's or linkshell's): duration, capacity,
offered load, throughput, utilization, drops, and the percentiles of the
per-packet queueing delay and of the signal delay, as Mahimahi's
mm-throughput-graph and mm-delay-graph define them (percentiles by rank, as
Mahimahi prints them). JSON figures are rounded to the precision they carry.
A LOG named - is read from standard input.`,
  options: [
    ['--format table|json', 'print the figures as a table (the default) or as JSON'],
    ['--json', 'deprecated: --format json (elsewhere in the toolkit,\n--json FILE writes JSON to FILE)'],
    ['-h, --help', 'this text'],
  ],
});

export async function runStats(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine('linkshell stats --help', {
    args: argv,
    options: { format: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    await writeStdout(STATS_HELP);
    return 0;
  }
  if (positionals.length === 0) throw usageError('give at least one log file (see linkshell stats --help)');
  if (values.json && values.format !== undefined) throw usageError('--json is the deprecated spelling of --format json: give --format alone');
  const format = values.json ? 'json' : nameValue('format', values.format ?? 'table', ['table', 'json'] as const);
  refuseStdinTwice(positionals);
  const results: Array<{ log: string; stats: LinkLogStats }> = positionals.map((path) => ({
    log: inputName(path),
    // A malformed or empty log is the caller's to fix: one line naming the file (and line, field, value), exit 2.
    stats: duringSetup(() => linkLogStats(parseLinkLog(readInputFile(path), inputName(path)))),
  }));
  // One meaning of --json in every command: "write JSON to FILE" (salsify sim, salsify analyze). Here it still prints, for now,
  // and says so (once the logs are read: an error stays the one line on stderr).
  if (values.json) process.stderr.write('linkshell stats: --json is deprecated: write --format json (--json means "write JSON to FILE" in the other commands)\n');
  // A failed write (a full disk, `> /dev/full`) is one line and exit 2, not an unhandled stream error.
  if (format === 'json') await writeStdout(JSON.stringify(results.map(({ log, stats }) => ({ log, stats: roundedStats(stats) })), null, 2) + '\n');
  else await writeStdout(results.map(({ log, stats }) => `${log}\n${formatStatsTable(stats)}\n`).join(''));
  return 0;
}

export function formatStatsTable(s: LinkLogStats): string {
  const table = new Table({ head: ['figure', 'value'], style: { head: [], border: [] } });
  const f = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
  table.push(
    ['duration', `${f(s.durationMs / 1000, 3)} s (${s.startMs} to ${s.endMs} ms)`],
    ['capacity', `${f(s.capacityMbps)} Mbit/s (${s.opportunities} opportunities)`],
    ['offered load', `${f(s.offeredMbps)} Mbit/s (${s.arrivals} packets, ${s.arrivalBytes} bytes)`],
    ['throughput', `${f(s.throughputMbps)} Mbit/s (${s.departures} packets, ${s.departureBytes} bytes)`],
    ['utilization', `${f(100 * s.utilization, 1)} %`],
    ['drops', `${s.drops} packets, ${s.dropBytes} bytes`],
  );
  const delays = (d: DelayFigures | undefined) =>
    d === undefined ? 'no departures' : `mean ${f(d.mean, 1)} ms, p50 ${d.p50}, p95 ${d.p95}, p99 ${d.p99}, max ${d.max} ms`;
  table.push(['queueing delay', delays(s.delayMs)], ['signal delay', delays(s.signalDelayMs)]);
  return table.toString();
}
