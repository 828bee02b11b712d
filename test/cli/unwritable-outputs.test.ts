// Outputs that cannot be written, in every bin: a standard output that is
// full (/dev/full: ENOSPC) or closed (EPIPE) is one line and exit status 2,
// not an unhandled 'error' event and its stack; an --out directory that cannot
// be made (under /proc, where Node's recursive mkdir loops for ever) is one
// line and exit 2, not a hang; and a file written on a full disk leaves the
// previous file whole and no temporary file (every output is written through
// a temporary name and renamed).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { effectiveCapabilities } from '../../src/netns/prerequisites.ts';
import { makeDirectory, writeFileAtomically } from '../../src/results/writer.ts';
import { HANG_BOUND_MS } from '../helpers/bounds.ts';
import { requires } from '../helpers/requires.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'unwritable-outputs-'));
const LOG = join(root, '..', 'shared', 'conformance', 'att_droptail_p20.up.log');

interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs `bin ARGS` with its standard output on `stdout` ('pipe': a pipe this side closes at once). */
function run(bin: string, args: string[], stdout: number | 'pipe'): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin', `${bin}.js`), ...args], { cwd: dir, stdio: ['ignore', stdout, 'pipe'] });
    if (stdout === 'pipe') child.stdout!.destroy();
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${bin} ${args.join(' ')}: still running after ${HANG_BOUND_MS / 1000} s: ${stderr}`));
    }, HANG_BOUND_MS);
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stderr });
    });
  });
}

const TO_STDOUT: Array<[string, string[], string]> = [
  ['linkshell', ['gen-trace', 'constant', '--rate', '2', '--duration', '1'], 'linkshell gen-trace'],
  ['linkshell', ['stats', LOG], 'linkshell stats'],
  ['linkshell', ['graph', LOG], 'linkshell graph'],
  ['linkshell', ['--help'], 'linkshell'],
  ['salsify', ['sim', '--downlink', 'const:2', '--uplink', 'const:2', '--duration', '0.2'], 'salsify sim'],
  ['salsify', ['eval', '--help'], 'salsify eval'],
  ['salsify', ['--help'], 'salsify'],
  ['ccbench', ['rfc8867', '--help'], 'ccbench rfc8867'],
];

test('a full standard output (/dev/full): one line naming the command, exit 2, in every bin', async () => {
  const full = openSync('/dev/full', 'w');
  try {
    for (const [bin, args, program] of TO_STDOUT) {
      const r = await run(bin, args, full);
      assert.is(r.status, 2, `${bin} ${args.join(' ')}: ${r.stderr}`);
      assert.is(r.stderr, `${program}: cannot write standard output: no space left on device\n`, `${bin} ${args.join(' ')}`);
    }
  } finally {
    closeSync(full);
  }
});

test('a standard output closed by its reader (EPIPE): one line, exit 2', async () => {
  const r = await run('linkshell', ['gen-trace', 'constant', '--rate', '12', '--duration', '600'], 'pipe');
  assert.is(r.status, 2, r.stderr);
  assert.is(r.stderr, 'linkshell gen-trace: cannot write standard output: the reading end was closed\n');
});

test('salsify send and receive with an --out that cannot be made (/proc/nope/x): one line, exit 2, no hang', async () => {
  const receive = await run('salsify', ['receive', '--port', '0', '--out', '/proc/nope/x'], 'pipe');
  assert.is(receive.status, 2, receive.stderr);
  assert.match(receive.stderr, /^salsify receive: cannot create --out \/proc\/nope\/x: [^\n]*\n$/);
  const send = await run('salsify', ['send', '--to', '127.0.0.1:9', '--video', 'synthetic', '--duration', '0.2', '--out', '/proc/nope/x'], 'pipe');
  assert.is(send.status, 2, send.stderr);
  assert.match(send.stderr, /^salsify send: cannot create --out \/proc\/nope\/x: [^\n]*\n$/);
  assert.throws(() => makeDirectory('/proc/nope/x'), /ENOENT/);
});

test('makeDirectory: parents made, an existing directory kept, a file in the way refused', () => {
  makeDirectory(join(dir, 'a', 'b', 'c'));
  makeDirectory(join(dir, 'a', 'b', 'c'));
  assert.ok(existsSync(join(dir, 'a', 'b', 'c')));
  writeFileSync(join(dir, 'a', 'file'), 'x');
  assert.throws(() => makeDirectory(join(dir, 'a', 'file')), /EEXIST/);
  assert.throws(() => makeDirectory(join(dir, 'a', 'file', 'd')), /ENOTDIR/);
});

const filesystems = join(dir, 'mounts');
const CAP_SYS_ADMIN = 21;
const canMount = ((effectiveCapabilities() ?? 0n) & (1n << BigInt(CAP_SYS_ADMIN))) !== 0n;
const asRoot = requires([], { mount: canMount ? undefined : 'CAP_SYS_ADMIN missing: the full-disk case mounts a small tmpfs (run as root)' });

asRoot('a full disk: linkshell graph --out, gen-trace -o and writeFileAtomically keep the previous file whole and leave no temporary file', async () => {
  mkdirSync(filesystems);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', filesystems], { encoding: 'utf8' });
  assert.is(mounted.status, 0, mounted.stderr);
  try {
    const svg = join(filesystems, 'graph.svg');
    writeFileSync(svg, '<svg>previous</svg>\n');
    const graph = await run('linkshell', ['graph', LOG, '--out', svg], 'pipe');
    assert.is(graph.status, 2, graph.stderr);
    assert.match(graph.stderr, /^linkshell graph: cannot write [^\n]*graph\.svg: no space left on device\n$/);
    assert.is(readFileSync(svg, 'utf8'), '<svg>previous</svg>\n', 'the previous file is whole');
    const trace = join(filesystems, 'long.trace');
    const gen = await run('linkshell', ['gen-trace', 'constant', '--rate', '12', '--duration', '60', '-o', trace], 'pipe');
    assert.is(gen.status, 2, gen.stderr);
    assert.not.ok(existsSync(trace), 'no truncated trace');
    assert.throws(() => writeFileAtomically(join(filesystems, 'big'), Buffer.alloc(1 << 20)), /ENOSPC/);
    assert.equal(readdirSync(filesystems).sort(), ['graph.svg']);
  } finally {
    spawnSync('umount', [filesystems]);
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
