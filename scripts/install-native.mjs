#!/usr/bin/env node
// Builds the native addons; run by `npm install` (package.json "install"
// script): the VP8 addon (native-vp8/) against the system libvpx, and on Linux
// the TUN addon (native-tun/, for linkshell --netns; it needs only the kernel's
// headers). When libvpx's headers are missing it installs them on
// Debian/Ubuntu when running as root, otherwise it stops with one line naming
// the command to run.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const APT_COMMAND = 'apt-get install -y libvpx-dev pkg-config';

function haveLibvpx() {
  const r = spawnSync('pkg-config', ['--exists', 'vpx'], { stdio: 'ignore' });
  return r.status === 0;
}

function fail(message) {
  console.error(`native-vp8: ${message}`);
  process.exit(1);
}

if (!haveLibvpx()) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const isDebian = existsSync('/etc/debian_version') && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!(isRoot && isDebian)) {
    fail(`libvpx development files not found (pkg-config vpx); run: sudo ${APT_COMMAND}`);
  }
  console.log(`native-vp8: libvpx headers missing; running as root on Debian/Ubuntu, so installing them: ${APT_COMMAND}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let r = spawnSync('apt-get', ['install', '-y', '-qq', 'libvpx-dev', 'pkg-config'], { stdio: 'inherit', env });
  if (r.status !== 0) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    r = spawnSync('apt-get', ['install', '-y', '-qq', 'libvpx-dev', 'pkg-config'], { stdio: 'inherit', env });
  }
  if (r.status !== 0 || !haveLibvpx()) fail(`installing libvpx-dev failed; run: ${APT_COMMAND}`);
}

// node-gyp: npm passes its bundled copy to lifecycle scripts; else look beside npm.
const candidates = [
  process.env.npm_config_node_gyp,
  join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
].filter(Boolean);
const nodeGyp = candidates.find((p) => existsSync(p));
if (!nodeGyp) fail('node-gyp not found (it ships with npm); run: npm install -g node-gyp');

// Use the headers that come with this Node installation rather than downloading them.
const args = [nodeGyp, 'rebuild', '--silent'];
const prefix = join(dirname(process.execPath), '..');
if (existsSync(join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);

function build(name, product) {
  try {
    execFileSync(process.execPath, args, { cwd: join(root, name), stdio: 'inherit' });
  } catch {
    console.error(`${name}: building the addon failed (see the compiler output above); retry with: cd ${name} && node ${nodeGyp} rebuild`);
    process.exit(1);
  }
  console.log(`${name}: built ${join(name, 'build', 'Release', product)}`);
}

build('native-vp8', 'vp8.node');
// TUN devices are Linux's; elsewhere linkshell has only its relay mode.
if (process.platform === 'linux') build('native-tun', 'tun.node');
