// Every bad trace, Y4M or IVF file given to `salsify sim` or `salsify send`:
// one line naming the file, exit status 2 (before the fix, 34 of these cases
// exited 1, a few of them after a second line).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/salsify.ts';
import { makeBadInputs } from './bad-inputs.ts';

const out = mkdtempSync(join(tmpdir(), 'bad-input-files-'));
const inputs = makeBadInputs();

/** Runs `salsify ARGS` in this process; returns the exit status and what went to stderr. */
async function salsify(args: string[]): Promise<{ status: number; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  }) as typeof process.stderr.write;
  try {
    return { status: await main(args), stderr };
  } finally {
    process.stderr.write = write;
  }
}

function commandsFor(input: (typeof inputs)[number]): Array<[string, string[]]> {
  if (input.kind === 'trace') {
    return [
      ['sim (downlink)', ['sim', '--downlink', input.path, '--uplink', 'const:2', '--duration', '0.2']],
      ['sim (uplink)', ['sim', '--downlink', 'const:2', '--uplink', input.path, '--duration', '0.2']],
    ];
  }
  return [
    ['sim', ['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--video', input.path, '--duration', '0.2']],
    ['send', ['send', '--to', '127.0.0.1:9', '--video', input.path, '--duration', '0.2', '--drain', '0', '--out', out]],
  ];
}

test('every bad input file: exit 2 and one line naming the file', async () => {
  assert.ok(inputs.length >= 35, `${inputs.length} bad inputs`);
  const failures: string[] = [];
  for (const input of inputs) {
    for (const [name, args] of commandsFor(input)) {
      const { status, stderr } = await salsify(args);
      const lines = stderr.trimEnd().split('\n');
      // send announces its run on a first line when the file fails only once frames are read.
      const errorLines = lines.filter((line) => !/^salsify send: run [0-9a-f]{8}: /.test(line));
      const ok = status === 2 && errorLines.length === 1 && errorLines[0]!.startsWith(`salsify ${args[0]}: `) && errorLines[0]!.includes(input.path);
      if (!ok) failures.push(`${name}, ${input.label}: status ${status}, stderr ${JSON.stringify(stderr)}`);
    }
  }
  assert.equal(failures, [], failures.join('\n'));
});

test('a FIFO or a directory as a trace is named for what it is, not "not found"', async () => {
  for (const [label, what] of [['a FIFO as a trace', 'a FIFO'], ['a directory as a trace', 'a directory']] as const) {
    const input = inputs.find((i) => i.label === label)!;
    const { status, stderr } = await salsify(['sim', '--downlink', input.path, '--uplink', 'const:2', '--duration', '0.2']);
    assert.is(status, 2);
    assert.ok(stderr.includes(`${input.path} is ${what}`), stderr);
    assert.not.match(stderr, /not found/);
  }
});

test.after(() => rmSync(out, { recursive: true, force: true }));

test.run();
