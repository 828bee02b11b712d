// What a Mahimahi user expects inside linkshell --netns (src/cli/mahimahi-shell.ts),
// checked in real namespaces: MAHIMAHI_BASE kept by a nested shell and reached
// from it through both links; the
// prompt prefix of both shells in order; COMMAND as the user who ran sudo, or
// root without sudo; MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asInvokingUser, invokingUser, PROMPT_COMMAND, shellEnvironment, shellPrefix } from '../../src/cli/mahimahi-shell.ts';
import { netnsUnavailable } from '../../src/netns/prerequisites.ts';
import { requires } from '../helpers/requires.ts';
import { bin, TRACE_12MBPS } from './helpers.ts';

const maybe = requires([], { netns: netnsUnavailable() });

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n';

test('the prompt prefix as Mahimahi\'s shells word it, outermost first; PROMPT_COMMAND as Mahimahi sets it', () => {
  const none = { delayMs: 0, uplinkLoss: 0, downlinkLoss: 0, uplinkOnOff: undefined, downlinkOnOff: undefined };
  assert.is(shellPrefix(none), '[link] ');
  assert.is(shellPrefix({ ...none, delayMs: 20 }), '[delay 20 ms] [link] ');
  assert.is(
    shellPrefix({ delayMs: 5, uplinkLoss: 0.1, downlinkLoss: 0.2, uplinkOnOff: { meanOnMs: 1000, meanOffMs: 500 }, downlinkOnOff: { meanOnMs: 2000, meanOffMs: 0, periodic: true } }),
    '[delay 5 ms] [loss up=0.1] [loss down=0.2] [onoff (up) on=1s off=0.5s] [intermittent (down) on=2s off=0s] [link] ',
  );
  assert.is(PROMPT_COMMAND, 'PS1="$MAHIMAHI_SHELL_PREFIX$PS1" PROMPT_COMMAND=');
  const outer = shellEnvironment({ PATH: '/bin' }, '10.0.0.1', '[delay 20 ms] [link] ');
  assert.is(outer.MAHIMAHI_BASE, '10.0.0.1');
  const inner = shellEnvironment(outer, '10.0.0.5', '[link] ');
  assert.is(inner.MAHIMAHI_BASE, '10.0.0.1');
  assert.is(inner.MAHIMAHI_SHELL_PREFIX, '[delay 20 ms] [link] [link] ');
  assert.is(inner.PROMPT_COMMAND, PROMPT_COMMAND);
});

test('under sudo COMMAND drops to SUDO_UID/SUDO_GID with the user\'s groups and home; as plain root it stays root', () => {
  assert.equal(invokingUser({ SUDO_UID: '1000', SUDO_GID: '1000' }, 0), { uid: 1000, gid: 1000 });
  assert.is(invokingUser({}, 0), undefined);
  assert.is(invokingUser({ SUDO_UID: '1000', SUDO_GID: '1000' }, 1000), undefined);
  assert.is(invokingUser({ SUDO_UID: '0', SUDO_GID: '0' }, 0), undefined);
  assert.is(invokingUser({ SUDO_UID: 'x', SUDO_GID: '1' }, 0), undefined);
  assert.equal(asInvokingUser(['id'], { uid: 1000, gid: 1000 }, PASSWD), ['setpriv', '--reuid=1000', '--regid=1000', '--init-groups', '--', 'id']);
  assert.equal(asInvokingUser(['id'], { uid: 4242, gid: 4242 }, PASSWD), ['setpriv', '--reuid=4242', '--regid=4242', '--clear-groups', '--', 'id']);
  assert.equal(asInvokingUser(['id'], undefined, PASSWD), ['id']);
  const env = shellEnvironment({ HOME: '/root', USER: 'root' }, '10.0.0.1', '[link] ', { uid: 1000 }, PASSWD);
  assert.is(env.HOME, '/home/alice');
  assert.is(env.USER, 'alice');
  assert.is(env.LOGNAME, 'alice');
});

/** Runs linkshell with `args` and `env`; its stdout and stderr. */
function run(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

maybe('a nested shell keeps the outer MAHIMAHI_BASE; the prompt prefixes nest in order', async () => {
  const env = { ...process.env };
  delete env.MAHIMAHI_BASE;
  delete env.MAHIMAHI_SHELL_PREFIX;
  delete env.SUDO_UID;
  const show = 'echo "base=$MAHIMAHI_BASE"; echo "prefix=$MAHIMAHI_SHELL_PREFIX"';
  const r = await run(['--netns', TRACE_12MBPS, TRACE_12MBPS, '--delay', '10', '--', process.execPath, bin, '--netns', TRACE_12MBPS, TRACE_12MBPS, '--delay', '20', '--', 'sh', '-c', show], env);
  assert.is(r.code, 0, r.stderr);
  const outer = /; the host is MAHIMAHI_BASE=(\S+)\n/.exec(r.stderr)?.[1];
  assert.ok(outer !== undefined, r.stderr);
  const escaped = outer.replace(/\./g, '\\.');
  assert.match(r.stderr, new RegExp(`; the host is MAHIMAHI_BASE=(?!${escaped}\\b)\\S+; inside, MAHIMAHI_BASE=${escaped} \\(the outermost shell's host\\)\n`));
  assert.match(r.stdout, new RegExp(`^base=${escaped}\n`));
  assert.match(r.stdout, /\nprefix=\[delay 10 ms\] \[link\] \[delay 20 ms\] \[link\] \n/);
});

// As in Mahimahi (each shell masquerades its inside address where it runs), a connection from the inner shell to
// $MAHIMAHI_BASE crosses both links and reaches the outermost host, which sees it come from the outer shell's inside address.
maybe('from a nested shell, $MAHIMAHI_BASE is reached through both links (both delays), from the outer shell\'s inside address', async () => {
  const env = { ...process.env };
  delete env.MAHIMAHI_BASE;
  delete env.SUDO_UID;
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {}); // (the client may be gone before the server's end is acknowledged)
    socket.end(`${socket.remoteAddress}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const { port } = server.address() as AddressInfo;
  // The inner COMMAND: connect to the outermost host, print the handshake's round trip (ms) and what the host saw.
  const client = `const t = Date.now(); const s = require('net').connect(${port}, process.env.MAHIMAHI_BASE);
    let rtt; s.on('connect', () => (rtt = Date.now() - t)); let seen = ''; s.on('data', (d) => (seen += d));
    s.on('end', () => { console.log(rtt + ' ' + seen.trim()); process.exit(0); }); s.on('error', (e) => { console.log('error ' + e.code); process.exit(1); });`;
  try {
    const r = await run(['--netns', TRACE_12MBPS, TRACE_12MBPS, '--delay', '10', '--', process.execPath, bin, '--netns', TRACE_12MBPS, TRACE_12MBPS, '--delay', '20', '--', process.execPath, '-e', client], env);
    assert.is(r.code, 0, r.stdout + r.stderr);
    const [rtt, seen] = r.stdout.trim().split(' ');
    // Round trip: 10 + 20 ms each way at least, so both shells' links were crossed (the inner alone: 40 ms).
    assert.ok(Number(rtt) >= 2 * (10 + 20), `handshake round trip ${rtt} ms`);
    const outerInside = /; the host is MAHIMAHI_BASE=(\d+\.\d+\.\d+)\.(\d+)\n/.exec(r.stderr);
    assert.ok(outerInside !== null, r.stderr);
    assert.is(seen, `${outerInside[1]}.${Number(outerInside[2]) + 1}`, 'the outer shell masqueraded the inner one');
  } finally {
    // (A connection whose namespace went before its FIN was acknowledged would keep this process alive.)
    for (const socket of sockets) socket.destroy();
    server.close();
  }
});

maybe('MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL in --netns: packets pass unemulated until SIGUSR1, then cross the link', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, MAHIMAHI_PASSTHROUGH_UNTIL_SIGNAL: '1' };
  delete env.MAHIMAHI_BASE;
  delete env.SUDO_UID;
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const { port } = server.address() as AddressInfo;
  const dir = mkdtempSync(join(tmpdir(), 'netns-passthrough-'));
  const summary = join(dir, 'summary.json');
  // Connections to the host (handshake times in ms): one, SIGUSR1 to linkshell, then until one takes the 2 x 200 ms delay.
  const client = `const hs = () => new Promise((resolve, reject) => { const t = Date.now(); const s = require('net').connect(${port}, process.env.MAHIMAHI_BASE);
      s.on('connect', () => { const ms = Date.now() - t; s.destroy(); resolve(ms); }); s.on('error', reject); });
    (async () => { const times = [await hs()]; process.kill(process.ppid, 'SIGUSR1');
      while (times.length < 50 && times[times.length - 1] < 400) times.push(await hs());
      console.log(JSON.stringify(times)); process.exit(0); })();`;
  try {
    const r = await run(['--netns', TRACE_12MBPS, TRACE_12MBPS, '--delay', '200', '--summary-json', summary, '--', process.execPath, '-e', client], env);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stderr, /SIGUSR1 at [\d.]+ s: passthrough ended/);
    const times = JSON.parse(r.stdout) as number[];
    assert.ok(times[times.length - 1]! >= 400, `the last handshake crossed the delay both ways: ${times}`);
    const [up, down] = JSON.parse(readFileSync(summary, 'utf8')).directions;
    // The first handshake passed unemulated both ways; the last crossed the link.
    assert.ok(up.passthrough.datagrams >= 1 && down.passthrough.datagrams >= 1, JSON.stringify([up.passthrough, down.passthrough]));
    assert.ok(up.datagramsIn >= 1 && down.datagramsIn >= 1);
  } finally {
    for (const socket of sockets) socket.destroy();
    server.close();
  }
});

maybe('under sudo COMMAND runs as SUDO_UID (nobody here); without sudo as root', async () => {
  const script = 'id -u; id -g; echo "$USER $HOME"';
  const dropped = await run(['--netns', TRACE_12MBPS, TRACE_12MBPS, '--', 'sh', '-c', script], { ...process.env, SUDO_UID: '65534', SUDO_GID: '65534', SUDO_USER: 'nobody' });
  assert.is(dropped.code, 0, dropped.stderr);
  const [uid, gid] = dropped.stdout.split('\n');
  assert.is(uid, '65534');
  assert.is(gid, '65534');
  const env = { ...process.env };
  delete env.SUDO_UID;
  delete env.SUDO_GID;
  const root = await run(['--netns', TRACE_12MBPS, TRACE_12MBPS, '--', 'id', '-u'], env);
  assert.is(root.code, 0, root.stderr);
  assert.is(root.stdout.trim(), String(process.getuid?.()));
});

requires([], { root: process.getuid?.() === 0 ? undefined : 'needs root' })('the relay mode too: under sudo COMMAND runs as SUDO_UID, LINKSHELL_ADDR kept', async () => {
  const r = await run([TRACE_12MBPS, TRACE_12MBPS, '--connect', '127.0.0.1:9', '--', 'sh', '-c', 'id -u; echo "$LINKSHELL_ADDR"'], { ...process.env, SUDO_UID: '65534', SUDO_GID: '65534' });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^65534\n127\.0\.0\.1:\d+\n$/);
});

test.run();
