// `salsify analyze`'s front end: its options and help; the figures come from
// src/salsify/live/analyze.ts (analyzeLiveRun) and are written by src/results,
// as salsify sim's are.
import { usageError } from '../common/errors.ts';
import { join } from 'node:path';
import { formatHelp, optional, outputFileValue, parseCommandLine, pathValue, refuseOutputsOverInputs } from '../common/validate.ts';
import { RECEIVER_RECORDS, SENDER_RECORDS } from '../salsify/live/records.ts';
import { framesToCsv } from '../results/csv.ts';
import { jsonText, runToJson } from '../results/json.ts';
import { summaryMarks } from '../results/marks.ts';
import { formatResultsTable } from '../results/table.ts';
import { STDIO, writeOutputFile, writeStderr, writeStdout } from './files.ts';
import { analyzeLiveRun, type LiveAnalysis } from '../salsify/live/analyze.ts';
import { WIDE_OPTION, wideHelpRow } from './table-options.ts';

export const ANALYZE_HELP = formatHelp({
  usage: ['salsify analyze DIR [options]'],
  about: `Computes the figures of a live run (salsify send + salsify receive) from
DIR/sender.jsonl and DIR/receiver.jsonl, which must be records of the same run
(the same run id): signal delay per source frame, SSIM per shown frame, frames
shown and skipped, bytes sent; prints the same table as salsify sim.`,
  options: [
    ['--json OUT.json', 'write {label, config, counters, bytesSent, link, endMs,\nsummary, ssimFrom, captureLatenessMs, notes}; -: to\nstandard output (the table then goes to standard\nerror)'],
    ['--csv OUT.csv', 'write the per-frame records (one line per source frame:\nits fate, send, arrival and display times, size,\nquantizer, SSIM); -: to standard output'],
    ['--link-log FILE', 'linkshell\'s log of the link the video crossed (its\n--uplink-log when the sender ran inside linkshell), for\nthe link utilisation while video was captured'],
    wideHelpRow(),
    ['-h, --help', 'this text'],
  ],
  notes: `Exit status: 0 on success, 2 for a bad argument or missing, mismatched or
malformed records, 1 otherwise.`,
});

/** What `salsify analyze` runs with: the run directory and where the results go. */
export interface AnalyzeArgs {
  readonly dir: string;
  readonly json?: string;
  readonly csv?: string;
  readonly linkLog?: string;
  readonly wide?: boolean;
}

export function parseAnalyzeArgs(argv: string[]): { help: true } | { help: false; args: AnalyzeArgs } {
  const { values, positionals } = parseCommandLine('salsify analyze --help', {
    args: argv,
    options: { json: { type: 'string' }, csv: { type: 'string' }, 'link-log': { type: 'string' }, ...WIDE_OPTION, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { help: true };
  if (positionals.length !== 1) throw usageError(positionals.length === 0 ? 'the run directory DIR is required' : `one run directory expected, got ${positionals.length}: ${positionals.join(' ')}`);
  const dir = positionals[0]!;
  const json = optional(values.json, (t) => outputFileValue('json', t));
  const csv = optional(values.csv, (t) => outputFileValue('csv', t));
  const linkLog = optional(values['link-log'], (t) => pathValue('link-log', t));
  if (json === STDIO && csv === STDIO) throw usageError('--json and --csv cannot both be "-": standard output takes one of them');
  refuseOutputsOverInputs(
    [json === undefined ? undefined : { role: '--json', path: json }, csv === undefined ? undefined : { role: '--csv', path: csv }],
    [
      ...[SENDER_RECORDS, RECEIVER_RECORDS, 'received.ivf', 'received.y4m'].map((name) => ({ role: `DIR/${name}`, path: join(dir, name) })),
      linkLog === undefined ? undefined : { role: '--link-log', path: linkLog },
    ],
  );
  return { help: false, args: { dir, json, csv, linkLog, wide: values.wide === true } };
}

/** `salsify analyze`: the figures of the run in DIR, printed as salsify sim's table and written where asked. */
export async function runAnalyze(argv: string[]): Promise<number> {
  const parsed = parseAnalyzeArgs(argv);
  if (parsed.help) {
    process.stdout.write(ANALYZE_HELP);
    return 0;
  }
  const args = parsed.args;
  let analysis: LiveAnalysis;
  try {
    analysis = await analyzeLiveRun(args.dir, { linkLog: args.linkLog });
  } catch (error) {
    // Missing, mismatched or malformed records and inputs are the caller's to fix.
    throw usageError((error as Error).message);
  }
  const c = analysis.config;
  const s = analysis.summary;
  if (args.json !== undefined) {
    const extra = { ssimFrom: analysis.ssimFrom, captureLatenessMs: analysis.captureLatenessMs, notes: analysis.notes };
    await writeOutputFile(args.json, jsonText(runToJson(analysis, s, { extra })));
  }
  if (args.csv !== undefined) await writeOutputFile(args.csv, framesToCsv(analysis.frames));
  // With --json - or --csv -, standard output carries that file: the table goes to standard error.
  const say = args.json === STDIO || args.csv === STDIO ? writeStderr : writeStdout;
  const seconds = s.framesCaptured / c.fps;
  await say(
    `run ${c.runId}: ${c.scheme}, ${c.codec} codec, video ${c.video} (${c.width}x${c.height} at ${c.fps} fps), ${seconds.toFixed(1)} s captured, ` +
      `budget ${c.budgetMs} ms, seed ${c.seed}; SSIM from ${analysis.ssimFrom}${c.linkLog ? `; link log ${c.linkLog}` : ''}\n`,
  );
  await say(formatResultsTable([{ label: analysis.label, summary: s, marks: summaryMarks(s) }], { wide: args.wide }) + '\n');
  for (const note of analysis.notes) await say(`note: ${note}\n`);
  return 0;
}
