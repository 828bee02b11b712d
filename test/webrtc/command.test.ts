// `salsify webrtc` on the command line: a missing chromium (firefox-esr with
// --browser firefox) or coturn is one
// line naming the apt command, exit status 2, and nothing written; bad
// arguments likewise; and a call stopped by SIGINT ends everything it started
// (browsers, coturn, linkshell, profiles, the temporary directory) and exits
// 130. The signal case runs a real call (about 20 s, bounded at 3 minutes).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/salsify.ts';
import { findPrerequisites } from '../../src/webrtc/prerequisites.ts';
import { processesMentioning } from '../helpers/processes.ts';
import { requires } from '../helpers/requires.ts';
import { makeBadInputs } from '../cli/bad-inputs.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'webrtc-command-test-'));

/** Runs `salsify ARGS` in this process with `env` set; returns the exit status and stderr. */
async function salsify(args: string[], env: Record<string, string> = {}): Promise<{ status: number; stderr: string; stdout: string }> {
  let stderr = '';
  let stdout = '';
  const writeErr = process.stderr.write;
  const writeOut = process.stdout.write;
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  }) as typeof process.stderr.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  }) as typeof process.stdout.write;
  try {
    return { status: await main(args), stderr, stdout };
  } finally {
    process.stderr.write = writeErr;
    process.stdout.write = writeOut;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

// Each case names the one program missing: the others point at a program that exists (Node), so that
// the case holds on a machine without Chromium or coturn as well.
const PRESENT = process.execPath;
const CALL = ['webrtc', '--downlink', 'const:2', '--uplink', 'const:2', '--video', 'synthetic'];

test('a missing chromium: one line with the apt command, exit 2, nothing written', async () => {
  const out = join(dir, 'no-chromium');
  const r = await salsify([...CALL, '--out', out], { SALSIFY_CHROMIUM: join(dir, 'no-such-chromium'), SALSIFY_TURNSERVER: PRESENT });
  assert.is(r.status, 2);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^salsify webrtc: .*chromium .*not installed; install with: apt-get install -y chromium\n$/);
  assert.not.ok(existsSync(out), '--out was not created');
});

test('--browser firefox without firefox-esr: one line with the apt command, exit 2, nothing written; chromium not needed', async () => {
  const out = join(dir, 'no-firefox');
  const r = await salsify([...CALL, '--browser', 'firefox', '--out', out], { SALSIFY_FIREFOX: join(dir, 'no-such-firefox'), SALSIFY_CHROMIUM: join(dir, 'no-such-chromium'), SALSIFY_TURNSERVER: PRESENT });
  assert.is(r.status, 2);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^salsify webrtc: .*firefox-esr .*not installed; install with: apt-get install -y firefox-esr\n$/);
  assert.not.ok(existsSync(out), '--out was not created');
  assert.is(findPrerequisites({ firefox: PRESENT, chromium: join(dir, 'no-such-chromium'), turnserver: PRESENT }, { browser: 'firefox' }).browserPath, PRESENT);
  assert.throws(() => findPrerequisites({ firefox: dir, turnserver: PRESENT }, { browser: 'firefox' }), /firefox-esr/, 'a directory is not a program');
});

test('--browser: a name it does not know, a netns path with Firefox, or beside a Salsify endpoint: one line, exit 2', async () => {
  const env = { SALSIFY_FIREFOX: PRESENT, SALSIFY_CHROMIUM: PRESENT, SALSIFY_TURNSERVER: PRESENT };
  for (const [args, pattern] of [
    [['--browser', 'safari'], /--browser/],
    [['--browser', 'firefox', '--path', 'p2p'], /--path p2p .*Firefox.*--path turn-udp/],
    [['--browser', 'firefox', '--path', 'turn-tcp'], /--path turn-tcp .*Firefox/],
    [['--browser', 'firefox', '--endpoint', 'salsify-1'], /--browser .*Salsify --endpoint/],
  ] as const) {
    const r = await salsify([...CALL, ...args, '--out', join(dir, 'x')], env);
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, pattern);
  }
  assert.not.ok(existsSync(join(dir, 'x')), '--out was not created');
});

test('a missing coturn, or both: the line names each package', async () => {
  const r = await salsify([...CALL, '--out', join(dir, 'x')], { SALSIFY_TURNSERVER: join(dir, 'no-turnserver'), SALSIFY_CHROMIUM: PRESENT });
  assert.is(r.status, 2);
  assert.match(r.stderr, /^salsify webrtc: .*coturn .*install with: apt-get install -y coturn\n$/);
  const both = await salsify([...CALL, '--out', join(dir, 'x')], { SALSIFY_CHROMIUM: '/nonexistent/chromium', SALSIFY_TURNSERVER: '/nonexistent/turnserver' });
  assert.is(both.status, 2);
  assert.match(both.stderr, /apt-get install -y chromium coturn\n$/);
  assert.throws(() => findPrerequisites({ chromium: dir }), /chromium/, 'a directory is not a program');
  const vp9 = await salsify([...CALL, '--codec', 'vp9', '--out', join(dir, 'x')], { SALSIFY_FFMPEG: join(dir, 'no-ffmpeg'), SALSIFY_CHROMIUM: PRESENT, SALSIFY_TURNSERVER: PRESENT });
  assert.is(vp9.status, 2);
  assert.match(vp9.stderr, /^salsify webrtc: .*ffmpeg .*install with: apt-get install -y ffmpeg\n$/);
  assert.ok(findPrerequisites({ ffmpeg: join(dir, 'no-ffmpeg'), chromium: PRESENT, turnserver: PRESENT }).ffmpeg === undefined, 'VP8 needs no ffmpeg');
});

test('a corrupt --video file (every bad IVF and Y4M of the bad-input table): one line naming it, exit 2, nothing started', async () => {
  const failures: string[] = [];
  for (const input of makeBadInputs().filter((i) => i.kind !== 'trace')) {
    const r = await salsify([...CALL, '--video', input.path, '--out', join(dir, 'corrupt')], { SALSIFY_CHROMIUM: PRESENT, SALSIFY_TURNSERVER: PRESENT });
    const ok = r.status === 2 && /^salsify webrtc: [^\n]*\n$/.test(r.stderr) && r.stderr.includes(input.path);
    if (!ok) failures.push(`${input.label}: status ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
  }
  assert.equal(failures, [], failures.join('\n'));
});

test('bad arguments: one line each, exit 2', async () => {
  for (const [args, pattern] of [
    [['--codec', 'h264'], /--codec must be one of vp8, vp9, av1/],
    [['--size', '641x360'], /--size must be WIDTHxHEIGHT, even/],
    [['--svc', 'L2T3'], /VP8 has temporal layers only/],
    [['--preset', 'fast-lte'], /--preset must be one of att-lte, /],
    [['--trace-start', '1.0005'], /--trace-start must be .* in whole ms/],
    [['--downlink-onoff', '5000'], /--downlink-onoff must be ON_MS,OFF_MS/],
    [['--endpoint', 'firefox'], /--endpoint must be one of chromium, salsify-1/],
    [['--downlink-loss', '1.5'], /--downlink-loss/],
    [['--delay', '2.5'], /--delay/],
    [['--queue', 'fifo'], /--queue/],
    [['--video', join(dir, 'missing.y4m')], /no such file/],
    [['--duration', '0'], /--duration/],
  ] as const) {
    const r = await salsify([...CALL, '--out', join(dir, 'bad'), ...args]);
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, pattern);
  }
  const missing = await salsify(['webrtc', '--uplink', 'const:2', '--out', join(dir, 'bad')]);
  assert.is(missing.status, 2);
  assert.match(missing.stderr, /--downlink TRACE is required/);
  const help = await salsify(['webrtc', '--help']);
  assert.is(help.status, 0);
  assert.match(help.stdout, /^Usage:\s+salsify webrtc /);
});

requires(['chromium', 'coturn'])('SIGINT during the call: everything started ends, nothing is left, exit 130', async () => {
  const out = join(dir, 'signal');
  const child = spawn(process.execPath, ['bin/salsify.js', ...CALL, '--duration', '60', '--out', out], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const status = await new Promise<number | null>((resolve, reject) => {
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no end within 180 s: ${stderr}`));
    }, 180_000);
    child.stderr.on('data', (chunk) => {
      const before = stderr;
      stderr += String(chunk);
      if (!/connected through/.test(before) && /connected through/.test(stderr)) setTimeout(() => child.kill('SIGINT'), 2000);
    });
    child.once('exit', (code) => {
      clearTimeout(limit);
      resolve(code);
    });
  });
  assert.is(status, 130, stderr);
  assert.match(stderr, /stopped by SIGINT; everything it started has ended/);
  const pids = [...stderr.matchAll(/started (.+?) \(pid (\d+)\)/g)].map((m) => ({ name: m[1]!, pid: Number(m[2]) }));
  assert.is(pids.length, 4, stderr);
  for (const p of pids) {
    let alive = true;
    try {
      process.kill(p.pid, 0);
    } catch {
      alive = false;
    }
    assert.not.ok(alive, `${p.name} (pid ${p.pid}) still runs`);
    const profile = /profile (\S+)/.exec(p.name)?.[1];
    if (profile !== undefined) {
      assert.not.ok(existsSync(profile), `${profile} is left`);
      assert.equal(processesMentioning(profile), [], `processes of ${profile} still run`);
    }
  }
  const temp = /temporary directory (\S+)/.exec(stderr)?.[1];
  assert.ok(temp !== undefined && !existsSync(temp), `temporary directory ${temp} is left`);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
