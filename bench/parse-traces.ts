// Parses every trace in ../shared/traces and prints lines per second per file
// and in total, for parseTrace and for two baselines run in the same process:
//   split:    new TextDecoder().decode(bytes).split('\n').map(Number)
//             (what a quick script does; it checks nothing)
//   checked:  the same split, plus a regular expression and the ordering rule
//             per line (a straightforward validating parser)
// Usage: node --import tsx bench/parse-traces.ts [--reps N] [DIR]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Table from 'cli-table3';
import { parseTrace } from '../src/link-emu/trace-parse.ts';

const args = process.argv.slice(2);
const repsAt = args.indexOf('--reps');
const reps = repsAt >= 0 ? Number(args.splice(repsAt, 2)[1]) : 7;
if (!(Number.isInteger(reps) && reps > 0)) throw new Error(`--reps: expected a positive integer`);
const dir = args[0] ?? fileURLToPath(new URL('../../shared/traces/', import.meta.url));

const decoder = new TextDecoder();

function splitBaseline(bytes: Uint8Array): number {
  return decoder.decode(bytes).split('\n').map(Number).length;
}

function checkedBaseline(bytes: Uint8Array): number {
  const lines = decoder.decode(bytes).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let previous = -1;
  const out: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
    if (!/^[ \t]*\+?\d+$/.test(line)) throw new Error(`line ${i + 1}: bad "${line}"`);
    const value = Number(line);
    if (value < previous) throw new Error(`line ${i + 1}: decreasing`);
    out.push((previous = value));
  }
  return Float64Array.from(out).length;
}

const methods: Record<string, (bytes: Uint8Array, name: string) => number> = {
  parseTrace: (bytes, name) => parseTrace(bytes, name).times.length,
  split: splitBaseline,
  checked: checkedBaseline,
};

/** Median wall time (ms) of `reps` runs. */
function time(run: () => number): number {
  const samples: number[] = [];
  for (let r = 0; r < reps; r++) {
    const start = process.hrtime.bigint();
    run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const files = readdirSync(dir)
  .filter((name) => !name.endsWith('.md') && statSync(join(dir, name)).isFile())
  .sort();
if (files.length === 0) throw new Error(`no traces in ${dir}`);
const inputs = files.map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(dir, name))) }));

// Warm up every method on every file (the JIT), checking they agree on the line count.
for (const { name, bytes } of inputs) {
  const lines = methods.parseTrace!(bytes, name);
  if (methods.checked!(bytes, name) !== lines) throw new Error(`${name}: baselines disagree on the line count`);
}

const table = new Table({
  head: ['trace', 'lines', 'KB', 'parseTrace ms', 'Mlines/s', 'split ms', 'checked ms', 'x split', 'x checked'],
  style: { head: [], border: [] },
});
const totals = { lines: 0, parseTrace: 0, split: 0, checked: 0 };
for (const { name, bytes } of inputs) {
  const lines = parseTrace(bytes, name).times.length;
  const ms = {
    parseTrace: time(() => methods.parseTrace!(bytes, name)),
    split: time(() => methods.split!(bytes, name)),
    checked: time(() => methods.checked!(bytes, name)),
  };
  totals.lines += lines;
  totals.parseTrace += ms.parseTrace;
  totals.split += ms.split;
  totals.checked += ms.checked;
  table.push([
    name,
    lines,
    (bytes.length / 1024).toFixed(0),
    ms.parseTrace.toFixed(2),
    (lines / ms.parseTrace / 1000).toFixed(1),
    ms.split.toFixed(2),
    ms.checked.toFixed(2),
    (ms.split / ms.parseTrace).toFixed(2),
    (ms.checked / ms.parseTrace).toFixed(2),
  ]);
}
table.push([
  'TOTAL',
  totals.lines,
  (inputs.reduce((s, i) => s + i.bytes.length, 0) / 1024).toFixed(0),
  totals.parseTrace.toFixed(1),
  (totals.lines / totals.parseTrace / 1000).toFixed(1),
  totals.split.toFixed(1),
  totals.checked.toFixed(1),
  (totals.split / totals.parseTrace).toFixed(2),
  (totals.checked / totals.parseTrace).toFixed(2),
]);
console.log(`Trace parsing, ${files.length} files in ${dir}, median of ${reps} runs (node ${process.version})`);
console.log(table.toString());
console.log(
  `parseTrace: ${(totals.lines / totals.parseTrace / 1000).toFixed(1)} M lines/s overall; ` +
    `${(totals.split / totals.parseTrace).toFixed(2)}x the speed of split+Number, ` +
    `${(totals.checked / totals.parseTrace).toFixed(2)}x a validating split parser`,
);
