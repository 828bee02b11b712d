// The TUN addon (native-tun/): every argument is checked in C, and a device
// carries packets both ways without blocking the event loop.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
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

test.run();
