// linkshell graph: Mahimahi's mm-throughput-graph and mm-delay-graph as one
// command, for logs written by linkshell or by Mahimahi, drops included.

import { basename, extname } from 'node:path';
import { parseLinkLog } from '../link-emu/link-log.ts';
import type { LinkLogStats } from '../link-emu/log-stats.ts';
import { duringSetup, unwritableFile, usageError } from '../common/errors.ts';
import { formatHelp, integerValue, optional, outputFileValue, parseCommandLine, refuseOutputsOverInputs } from '../common/validate.ts';
import { linkDirectionSeries, linkGraphSpec, type LinkDirectionSeries } from '../plots/link-graph.ts';
import { escapeHtml, renderHtml, renderSvg } from '../plots/render.ts';
import { inputName, readInputFile, refuseStdinTwice, STDIO, writeStdout } from './files.ts';
import { writeFileAtomically } from '../results/writer.ts';

const HELP_REF = 'linkshell graph --help';
export const DEFAULT_BIN_MS = 500;
const MAX_BIN_MS = 3_600_000;

export const GRAPH_HELP = formatHelp({
  usage: ['linkshell graph LOG... [--out FILE.svg|FILE.html|-] [--bin MS]'],
  about: `Draws each mm-link log (Mahimahi's or linkshell's) as Mahimahi's
mm-throughput-graph and mm-delay-graph do, in one picture: capacity as a
filled area with ingress and egress throughput as lines (per bin), dropped
traffic as crosses, and below it the per-packet queueing delay (points) with
the signal delay (filled) and both 95th percentiles. Several logs (both
directions of a run) are drawn side by side, in the order given. Prints the
figures Mahimahi prints: average capacity, throughput and utilisation, p95
per-packet queueing delay and p95 signal delay (percentiles by rank, as
Mahimahi takes them), and the drops, which Mahimahi's scripts do not read.
A LOG named - is read from standard input, as mm-delay-graph reads it.`,
  options: [
    ['--out FILE', 'write the graph to FILE: an SVG picture (FILE.svg) or an\nHTML page with the picture and its Vega-Lite specification\n(FILE.html); the figures go to standard output. Without\n--out the SVG goes to standard output, the figures to\nstandard error, as Mahimahi\'s scripts do'],
    ['--bin MS', `throughput bin in ms, 1 to ${MAX_BIN_MS} (default ${DEFAULT_BIN_MS}, as Mahimahi's)`],
    ['-h, --help', 'this text'],
  ],
  notes: `Example:
  linkshell graph uplink.log downlink.log --out run.svg`,
});

export async function runGraph(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(HELP_REF, {
    args: argv,
    options: { out: { type: 'string' }, bin: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    await writeStdout(GRAPH_HELP);
    return 0;
  }
  if (positionals.length === 0) throw usageError(`give at least one log file (see ${HELP_REF})`);
  const binMs = optional(values.bin, (t) => integerValue('bin', t, { min: 1, max: MAX_BIN_MS })) ?? DEFAULT_BIN_MS;
  // --out - is standard output, as no --out.
  const out = optional(values.out, (t) => outputFileValue('out', t)) === '-' ? undefined : values.out;
  refuseStdinTwice(positionals);
  refuseOutputsOverInputs([out === undefined ? undefined : { role: '--out', path: out }], positionals.map((path) => ({ role: 'LOG', path })));
  const format = out === undefined ? 'svg' : extname(out).toLowerCase();
  if (format !== 'svg' && format !== '.svg' && format !== '.html' && format !== '.htm') {
    throw usageError(`--out must name an .svg or .html file, got ${JSON.stringify(out)} (see ${HELP_REF})`);
  }
  // A malformed or empty log: one line naming the file (and line, field, value), exit 2.
  const series = positionals.map((path) =>
    duringSetup(() => {
      const log = parseLinkLog(readInputFile(path), inputName(path));
      const link = log.header.linkName;
      const name = path === STDIO ? inputName(path) : basename(path);
      return linkDirectionSeries(log, binMs, link ? `${name} (${link})` : name);
    }),
  );
  const figures = series.map(formatFigures).join('\n');
  const spec = linkGraphSpec(series);
  if (out === undefined) {
    await writeStdout(await renderSvg(spec));
    process.stderr.write(figures);
    return 0;
  }
  const document = format === '.svg'
    ? await renderSvg(spec)
    : await renderHtml(`linkshell graph: ${positionals.map((p) => basename(p)).join(', ')}`, [{ title: 'Throughput and delay', spec }], `<pre>${escapeHtml(figures)}</pre>`);
  try {
    writeFileAtomically(out, document);
  } catch (error) {
    throw unwritableFile(out, error);
  }
  await writeStdout(`${figures}\nwrote ${out}\n`);
  return 0;
}

/** The figures of one direction, worded as Mahimahi's scripts print them (and its drops). */
export function formatFigures(s: LinkDirectionSeries): string {
  const f: LinkLogStats = s.stats;
  const lines = [
    `${s.title}:`,
    `  Average capacity: ${f.capacityMbps.toFixed(2)} Mbits/s`,
    `  Average throughput: ${f.throughputMbps.toFixed(2)} Mbits/s (${(100 * f.utilization).toFixed(1)}% utilization)`,
    f.delayMs ? `  95th percentile per-packet queueing delay: ${f.delayMs.p95.toFixed(0)} ms` : '  95th percentile per-packet queueing delay: - (no departures)',
    f.signalDelayMs ? `  95th percentile signal delay: ${f.signalDelayMs.p95.toFixed(0)} ms` : '  95th percentile signal delay: - (no departures)',
    `  Drops: ${f.drops} packets (${f.dropBytes} bytes)`,
  ];
  return lines.join('\n') + '\n';
}
