#!/usr/bin/env node
// Builds the native addons; run by `npm install` (package.json "install"
// script): the VP8 addon (native-vp8/) against a static libvpx built with
// error concealment from Debian's source package (scripts/libvpx-source.mjs;
// cached in .libvpx-cache/), or the system libvpx when that cannot be had
// (the choice is written to native-vp8/build/libvpx-build.json), and on Linux
// the TUN addon (native-tun/, for linkshell --netns; it needs only the kernel's
// headers). When libvpx's headers are missing it installs them on
// Debian/Ubuntu when running as root, otherwise it stops with one line naming
// the command to run.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHOICE_FILE, prepareLibvpx } from './libvpx-source.mjs';

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

function build(name, product, env = process.env) {
  try {
    execFileSync(process.execPath, args, { cwd: join(root, name), stdio: 'inherit', env });
  } catch {
    console.error(`${name}: building the addon failed (see the compiler output above); retry with: cd ${name} && node ${nodeGyp} rebuild`);
    process.exit(1);
  }
  console.log(`${name}: built ${join(name, 'build', 'Release', product)}`);
}

let libvpx;
try {
  libvpx = prepareLibvpx(root);
} catch (error) {
  fail(`building libvpx from source failed (LIBVPX=source): ${error.message}`);
}
const vp8Env = { ...process.env };
if (libvpx.kind === 'source') {
  // binding.gyp asks pkg-config for libvpx: the built one's vpx.pc comes first.
  const pc = join(libvpx.prefix, 'lib', 'pkgconfig');
  vp8Env.PKG_CONFIG_PATH = process.env.PKG_CONFIG_PATH ? `${pc}:${process.env.PKG_CONFIG_PATH}` : pc;
  console.log(`native-vp8: linking libvpx built with error concealment (${libvpx.cached ? 'cached' : `built in ${libvpx.buildSeconds.toFixed(0)} s`}; ${libvpx.prefix})`);
} else {
  console.log(`native-vp8: linking the system libvpx (no error concealment): ${libvpx.reason}`);
}
build('native-vp8', 'vp8.node', vp8Env);
// node-gyp rebuild empties build/, so the record is written after it.
writeFileSync(join(root, CHOICE_FILE), `${JSON.stringify(libvpx, null, 2)}\n`);
// TUN devices are Linux's; elsewhere linkshell has only its relay mode.
if (process.platform === 'linux') build('native-tun', 'tun.node');
