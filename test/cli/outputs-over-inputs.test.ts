// An output never overwrites an input, in every command of every bin: an
// output option naming an input file (by the same name, another spelling of
// its path, a symbolic link or a hard link) is one line and exit status 2,
// and the input is left as it was.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCodeOf } from '../../src/common/errors.ts';
import { refuseOutputsOverInputs } from '../../src/common/validate.ts';
import { parseRfc8867Args } from '../../src/cli/ccbench.ts';
import { parseEvalArgs } from '../../src/cli/eval-command.ts';
import { parseLinkshellCommandLine } from '../../src/cli/linkshell-options.ts';
import { parseSimArgs } from '../../src/cli/salsify.ts';
import { parseAnalyzeArgs } from '../../src/cli/salsify-analyze.ts';
import { parseSendArgs } from '../../src/cli/salsify-send.ts';
import { parseWebrtcArgs } from '../../src/cli/webrtc-command.ts';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'outputs-over-inputs-'));
const TRACE_TEXT = '1\n2\n3\n';
const trace = join(dir, 'link.trace');
writeFileSync(trace, TRACE_TEXT);
const log = join(dir, 'in.log');
writeFileSync(log, '0 + 100\n1 + 100\n');
const run = join(dir, 'run');
mkdirSync(run);
writeFileSync(join(run, 'sender.jsonl'), '{}\n');
writeFileSync(join(run, 'receiver.jsonl'), '{}\n');
const clip = join(dir, 'clip.y4m');
writeFileSync(clip, 'YUV4MPEG2 W16 H16 F30:1 Ip A1:1 C420jpeg\n');

/** `parse()` refuses with the one message form, naming the output and the input. */
function refused(parse: () => unknown, output: RegExp): void {
  try {
    parse();
  } catch (error) {
    assert.is(errorCodeOf(error), 'ERR_BAD_ARGUMENT', String(error));
    const message = (error as Error).message;
    assert.match(message, output);
    assert.match(message, /is the input [^\n]*: an output never overwrites an input$/);
    return;
  }
  assert.unreachable(`accepted; expected ${output}`);
}

test('the helper: same name, another spelling, a symbolic link, a hard link; "-" and distinct files pass', () => {
  const same = (path: string) => () => refuseOutputsOverInputs([{ role: '--out', path }], [{ role: 'IN', path: trace }]);
  refused(same(trace), /^--out ".*link\.trace" is the input IN: /);
  refused(same(`${dir}/./x/../link.trace`), /^--out ".*" is the input IN ".*link\.trace": /);
  symlinkSync(trace, join(dir, 'symlink.trace'));
  refused(same(join(dir, 'symlink.trace')), /symlink\.trace/);
  linkSync(trace, join(dir, 'hardlink.trace'));
  refused(same(join(dir, 'hardlink.trace')), /hardlink\.trace/);
  refuseOutputsOverInputs([{ role: '--out', path: '-' }, { role: '--out', path: join(dir, 'new.log') }], [{ role: 'IN', path: trace }, { role: 'IN', path: '-' }]);
});

test('linkshell: --uplink-log or --downlink-log naming a trace (the defect: it overwrote the trace with rc 0)', () => {
  refused(() => parseLinkshellCommandLine([trace, trace, '--connect', '127.0.0.1:9', '--uplink-log', trace]), /^--uplink-log ".*" is the input UPLINK_TRACE/);
  refused(() => parseLinkshellCommandLine(['--netns', '--trace', trace, '-d', join(dir, 'hardlink.trace')]), /^--downlink-log ".*hardlink\.trace" is the input --trace/);
  refused(() => parseLinkshellCommandLine([trace, trace, '--connect', '127.0.0.1:9', '--summary-json', trace]), /^--summary-json ".*" is the input UPLINK_TRACE/);
  // A trace found by name in $LINKSHELL_TRACES is that file.
  const before = process.env.LINKSHELL_TRACES;
  process.env.LINKSHELL_TRACES = dir;
  try {
    refused(() => parseLinkshellCommandLine(['link.trace', 'other', '--connect', '127.0.0.1:9', '--uplink-log', trace]), /is the input UPLINK_TRACE/);
  } finally {
    if (before === undefined) delete process.env.LINKSHELL_TRACES;
    else process.env.LINKSHELL_TRACES = before;
  }
  const r = spawnSync(process.execPath, [join(root, 'bin', 'linkshell.js'), trace, trace, '--connect', '127.0.0.1:9', '--uplink-log', trace, '--', 'true'], { encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /^linkshell: --uplink-log ".*" is the input UPLINK_TRACE: an output never overwrites an input\n$/);
  assert.is(readFileSync(trace, 'utf8'), TRACE_TEXT);
});

test('linkshell replay and graph', () => {
  for (const [args, output] of [
    [['replay', '--log-in', log, '--trace', trace, '--log', log], /^linkshell replay: --log ".*" is the input --log-in: /],
    [['replay', '--log-in', log, '--trace', trace, '--log', trace], /^linkshell replay: --log ".*" is the input --trace: /],
    [['graph', log, '--out', log], /^linkshell graph: --out ".*" is the input LOG: /],
  ] as const) {
    const before = readFileSync(args.includes(trace) && args.at(-1) === trace ? trace : log, 'utf8');
    const r = spawnSync(process.execPath, [join(root, 'bin', 'linkshell.js'), ...args], { encoding: 'utf8', timeout: 60_000 });
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, output);
    assert.is(r.stderr.split('\n').length, 2, r.stderr);
    assert.is(readFileSync(args.at(-1)!, 'utf8'), before);
  }
});

test('salsify sim: --json naming its trace or video, --log-dir holding a file it would write', () => {
  refused(() => parseSimArgs(['--downlink', trace, '--uplink', 'const:1', '--json', trace]), /^--json ".*" is the input --downlink/);
  refused(() => parseSimArgs(['--downlink', 'const:1', '--uplink', trace, '--json', join(dir, 'symlink.trace')]), /is the input --uplink/);
  refused(() => parseSimArgs(['--downlink', 'const:1', '--uplink', 'const:1', '--video', clip, '--json', clip]), /is the input --video/);
  writeFileSync(join(dir, 'summary.csv'), '1\n');
  refused(() => parseSimArgs(['--downlink', join(dir, 'summary.csv'), '--uplink', 'const:1', '--log-dir', dir]), /^--log-dir ".*summary\.csv" is the input --downlink/);
  parseSimArgs(['--downlink', trace, '--uplink', trace, '--json', join(dir, 'out.json'), '--log-dir', join(dir, 'logs')]);
});

test('salsify analyze: --json or --csv naming the run\'s records or --link-log', () => {
  refused(() => parseAnalyzeArgs([run, '--json', join(run, 'sender.jsonl')]), /^--json ".*sender\.jsonl" is the input DIR\/sender\.jsonl/);
  refused(() => parseAnalyzeArgs([run, '--csv', join(run, 'receiver.jsonl')]), /is the input DIR\/receiver\.jsonl/);
  refused(() => parseAnalyzeArgs([run, '--csv', log, '--link-log', log]), /is the input --link-log/);
  parseAnalyzeArgs([run, '--json', join(run, 'analysis.json')]);
});

test('salsify send, webrtc, eval; ccbench', () => {
  writeFileSync(join(dir, 'sender.jsonl'), '');
  refused(() => parseSendArgs(['--to', '127.0.0.1:9', '--video', join(dir, 'sender.jsonl'), '--out', dir], {}), /^--out ".*sender\.jsonl" is the input --video/);
  const webrtcOut = join(dir, 'webrtc');
  mkdirSync(webrtcOut);
  writeFileSync(join(webrtcOut, 'frames.csv'), TRACE_TEXT);
  refused(() => parseWebrtcArgs(['--endpoint', 'salsify-1', '--downlink', join(webrtcOut, 'frames.csv'), '--uplink', 'const:1', '--out', webrtcOut]), /^--out .* is the input --downlink/);
  const evalOut = join(dir, 'eval');
  mkdirSync(evalOut);
  writeFileSync(join(evalOut, 'report.html'), '');
  refused(() => parseEvalArgs(['--video', join(evalOut, 'report.html'), '--out', evalOut]), /^--out ".*report\.html" is the input --video/);
  writeFileSync(join(dir, '5.1.gcc.json'), '{}');
  refused(() => parseRfc8867Args(['--case', '5.1', '--thresholds', join(dir, '5.1.gcc.json'), '--out', dir]), /^--out ".*5\.1\.gcc\.json" is the input --thresholds/);
  refused(() => parseRfc8867Args(['--case', '5.1', '--thresholds', join(dir, 'summary.csv'), '--out', dir]), /is the input --thresholds/);
  parseRfc8867Args(['--case', '5.1', '--thresholds', join(dir, '5.1.gcc.json'), '--out', join(dir, 'cc')]);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
