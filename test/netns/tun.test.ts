// The TUN addon (native-tun/): every argument is checked in C, and a device
// carries packets both ways without blocking the event loop; its namespace
// helpers (native-tun/src/netns.c) read and write files as a namespace sees
// them and remove one as `ip netns del` does.

import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { txDroppedIn } from '../../src/netns/device-stats.ts';
import { namespacePath, planLayout } from '../../src/netns/namespace.ts';
import { nativeTun, TunDevice } from '../../src/netns/tun.ts';
import { netnsUnavailable } from '../../src/netns/prerequisites.ts';
import { requires } from '../helpers/requires.ts';

const tun = nativeTun();
const privileged = requires([], { netns: netnsUnavailable() });

function throwsKind(f: () => unknown, kind: ErrorConstructor, pattern: RegExp): void {
  try {
    f();
  } catch (error) {
    assert.instance(error, kind);
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`no ${kind.name} thrown`);
}

test('open: the name is checked before anything is opened', () => {
  throwsKind(() => (tun.open as (n: unknown) => unknown)(7), TypeError, /name must be a string/);
  throwsKind(() => tun.open('a'.repeat(16)), RangeError, /at most 15 bytes, got 16/);
  throwsKind(() => tun.open('tun 0'), RangeError, /character 3 \(0x20\)/);
  throwsKind(() => tun.open('a/b'), RangeError, /character 1 \(0x2f\)/);
  throwsKind(() => tun.open('t%d%d'), RangeError, /more than one %d/);
  throwsKind(() => tun.open('..'), RangeError, /not a device name/);
  throwsKind(() => (tun.open as () => unknown)(), TypeError, /open expects 1 argument, got 0/);
});

test('write, startReading, close: fds, sizes, packets and callbacks are checked', () => {
  throwsKind(() => tun.write(-1, new Uint8Array(20)), RangeError, /fd must be an integer/);
  throwsKind(() => tun.write(1.5, new Uint8Array(20)), RangeError, /fd must be an integer/);
  throwsKind(() => (tun.write as (fd: number, p: unknown) => number)(3, 'abc'), TypeError, /packet must be a Uint8Array/);
  throwsKind(() => (tun.write as (fd: number, p: unknown) => number)(3, new Uint16Array(4)), TypeError, /packet must be a Uint8Array/);
  throwsKind(() => tun.write(3, new Uint8Array(0)), RangeError, /1\.\.65535 bytes, got 0/);
  throwsKind(() => tun.write(3, new Uint8Array(65536)), RangeError, /1\.\.65535 bytes, got 65536/);
  throwsKind(() => tun.startReading(3, 0, () => {}), RangeError, /maxBytes must be an integer in 1\.\.65535/);
  throwsKind(() => (tun.startReading as (fd: number, m: number, c: unknown) => unknown)(3, 1500, 'f'), TypeError, /callback must be a function/);
  throwsKind(() => tun.startReading(1 << 29, 1500, () => {}), Error, /fd 536870912: Bad file descriptor/);
  throwsKind(() => (tun.stopReading as (r: unknown) => void)({}), TypeError, /reader must be a handle returned by startReading/);
  throwsKind(() => tun.close(Number.NaN), RangeError, /fd must be an integer/);
});

privileged('a device gets the kernel\'s name for a pattern, is gone once closed, and a taken name is EBUSY', async () => {
  const device = TunDevice.open('lstest%d');
  try {
    assert.match(device.name, /^lstest\d+$/);
    const { existsSync } = await import('node:fs');
    assert.ok(existsSync(`/sys/class/net/${device.name}`));
    try {
      TunDevice.open(device.name);
      assert.unreachable('a second device took the same name');
    } catch (error) {
      assert.is((error as NodeJS.ErrnoException).code, 'EBUSY');
      assert.match((error as Error).message, new RegExp(`ioctl TUNSETIFF ${device.name} on /dev/net/tun: Device or resource busy`));
    }
    device.close();
    assert.not.ok(existsSync(`/sys/class/net/${device.name}`));
    device.close();
    assert.is(device.write(new Uint8Array(20)), false);
  } finally {
    device.close();
  }
});

test('readIn, writeIn, removeNamespace: paths and text are checked', () => {
  throwsKind(() => (tun.readIn as (p: unknown, f: unknown) => string)(7, '/x'), TypeError, /namespacePath must be a string/);
  throwsKind(() => tun.readIn('', '/x'), RangeError, /namespacePath must be 1 to 4095 bytes, got 0/);
  throwsKind(() => (tun.readIn as (p: string, f: unknown) => string)('/run/netns/x', null), TypeError, /file must be a string/);
  throwsKind(() => (tun.writeIn as (p: string, f: string, t: unknown) => void)('/run/netns/x', '/x', 1), TypeError, /text must be a string/);
  throwsKind(() => tun.writeIn('/run/netns/x', '/x', 'a'.repeat(256)), RangeError, /text must be at most 255 bytes, got 256/);
  throwsKind(() => (tun.removeNamespace as (p: unknown) => void)(undefined), TypeError, /namespacePath must be a string/);
  throwsKind(() => (tun.readIn as (p: string) => string)('/x'), TypeError, /readIn expects 2 arguments, got 1/);
  throwsKind(() => (tun.open as (n: string, p: unknown) => unknown)('a', 7), TypeError, /namespacePath must be a string/);
});

privileged('a namespace\'s files as it sees them: its devices\' counters read, a sysctl of its own written; a device made inside it; removed as ip netns del does', () => {
  const { namespace } = planLayout(1500);
  const path = namespacePath(namespace);
  assert.is(spawnSync('ip', ['netns', 'add', namespace]).status, 0);
  try {
    const devices = tun.readIn(path, '/proc/thread-self/net/dev');
    assert.equal(devices.split('\n').slice(2).filter(Boolean).map((line) => line.split(':')[0]!.trim()), ['lo'], devices);
    assert.is(txDroppedIn(devices, 'lo'), 0);
    if (existsSync('/proc/sys/net/ipv6')) {
      const inside = () => spawnSync('ip', ['netns', 'exec', namespace, 'cat', '/proc/sys/net/ipv6/conf/lo/disable_ipv6'], { encoding: 'utf8' }).stdout;
      assert.is(inside(), '0\n');
      tun.writeIn(path, '/proc/sys/net/ipv6/conf/lo/disable_ipv6', '1');
      assert.is(inside(), '1\n');
      assert.is(tun.readIn(path, '/proc/sys/net/ipv6/conf/lo/disable_ipv6'), '1\n');
      assert.is(readFileSync('/proc/sys/net/ipv6/conf/lo/disable_ipv6', 'utf8'), '0\n', 'the host\'s own sysctl changed');
    }
    const inside = TunDevice.open('lsin%d', path);
    try {
      assert.match(inside.name, /^lsin\d+$/);
      assert.not.ok(existsSync(`/sys/class/net/${inside.name}`), 'made in the host\'s namespace');
      assert.is(spawnSync('ip', ['-n', namespace, 'link', 'show', 'dev', inside.name]).status, 0, 'not in the namespace');
      assert.is(txDroppedIn(tun.readIn(path, '/proc/thread-self/net/dev'), inside.name), 0);
    } finally {
      inside.close();
    }
    assert.is.not(spawnSync('ip', ['-n', namespace, 'link', 'show', 'dev', inside.name]).status, 0, 'still there once closed');
    try {
      tun.open('lsin0', '/run/netns/no-such-namespace');
      assert.unreachable('made a device in a namespace that does not exist');
    } catch (error) {
      assert.is((error as NodeJS.ErrnoException).code, 'ENOENT');
      assert.match((error as Error).message, /^open \/run\/netns\/no-such-namespace: No such file/);
    }
    try {
      tun.writeIn(path, '/proc/sys/net/ipv6/conf/no-such-device/disable_ipv6', '1');
      assert.unreachable('wrote a file that does not exist');
    } catch (error) {
      assert.is((error as NodeJS.ErrnoException).code, 'ENOENT');
      assert.match((error as Error).message, new RegExp(`^open /proc/sys/net/ipv6/conf/no-such-device/disable_ipv6 in network namespace ${path}: No such file`));
    }
    tun.removeNamespace(path);
    assert.not.ok(existsSync(path));
    assert.not.match(spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout, namespace);
    tun.removeNamespace(path); // (Gone already: nothing to do.)
    try {
      tun.readIn(path, '/proc/thread-self/net/dev');
      assert.unreachable('read inside a removed namespace');
    } catch (error) {
      assert.is((error as NodeJS.ErrnoException).code, 'ENOENT');
    }
  } finally {
    spawnSync('ip', ['netns', 'del', namespace], { stdio: 'ignore' });
  }
});

privileged('a device\'s transmit drops (its queue full: nobody reads it) are the column txDroppedIn reads from /proc/net/dev', async () => {
  const device = TunDevice.open('lsdrop%d');
  const layout = planLayout(1500);
  const socket = createSocket('udp4');
  try {
    const ip = (...args: string[]) => assert.is(spawnSync('ip', args, { encoding: 'utf8' }).status, 0, args.join(' '));
    ip('addr', 'add', `${layout.hostAddress}/30`, 'dev', device.name);
    ip('link', 'set', 'dev', device.name, 'up');
    await new Promise<void>((resolve) => socket.bind(0, layout.hostAddress, resolve));
    // Into the device and never read: the kernel queues txqueuelen packets (500 by default) and drops the rest.
    for (let i = 0; i < 1000; i++) await new Promise((resolve) => socket.send(Buffer.alloc(100), 9, layout.insideAddress, resolve));
    const sysfs = Number(readFileSync(`/sys/class/net/${device.name}/statistics/tx_dropped`, 'utf8'));
    assert.ok(sysfs > 0, `no drops: ${sysfs}`);
    assert.is(txDroppedIn(tun.readIn('/proc/self/ns/net', '/proc/thread-self/net/dev'), device.name), sysfs);
    assert.is(txDroppedIn('', device.name), undefined);
  } finally {
    socket.close();
    device.close();
  }
});

test.run();
