// The libvpx the VP8 addon links: a static VP8-only libvpx built with error
// concealment (--enable-error-concealment) from Debian's source package, or,
// when that cannot be had, the system's libvpx (Debian's is built without
// error concealment). Run by scripts/install-native.mjs (so by `npm install`,
// `npm ci` and .ci/run).
//
// The source is what `apt-get source --download-only libvpx` fetches (the
// upstream tarball and Debian's patches, which are applied: they carry the
// security fixes); it needs a deb-src entry in the apt sources. Builds are
// cached in .libvpx-cache/ (gitignored; LIBVPX_CACHE_DIR moves it) under a key
// hashed from both tarballs and the configure flags, so a rebuild of the addon
// links the cached library without building it again.
//
// LIBVPX=system skips the source build; LIBVPX=source makes a failure to
// build it an error instead of a fallback.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

export const CONFIGURE_FLAGS = [
  '--disable-vp9', '--enable-vp8', '--enable-error-concealment', '--enable-pic', '--enable-static', '--disable-shared',
  '--disable-examples', '--disable-tools', '--disable-docs', '--disable-unit-tests', '--disable-install-bins',
  '--disable-install-srcs',
];

/** The file beside the built addon that records which libvpx it links. */
export const CHOICE_FILE = join('native-vp8', 'build', 'libvpx-build.json');

function have(command, env) {
  return spawnSync('/bin/sh', ['-c', `command -v ${command}`], { stdio: 'ignore', env }).status === 0;
}

function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function findTarballs(dir) {
  if (!existsSync(dir)) return undefined;
  const names = readdirSync(dir).sort();
  const orig = names.find((n) => /^libvpx_[\d.]+\.orig\.tar\.gz$/.test(n));
  const debian = names.find((n) => /^libvpx_.+\.debian\.tar\.xz$/.test(n));
  return orig && debian ? { orig: join(dir, orig), debian: join(dir, debian) } : undefined;
}

function run(command, args, options, log) {
  const r = spawnSync(command, args, { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  writeFileSync(log, `$ ${command} ${args.join(' ')}\n${r.stdout ?? ''}${r.stderr ?? ''}\n`, { flag: 'a' });
  if (r.status !== 0) throw new Error(`${command} ${args[0] ?? ''} failed (status ${r.status ?? r.signal}; see ${log})`);
}

/** Fetches the source package into `dir` with apt-get (download only). */
function fetchSource(dir) {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('apt-get', ['source', '--download-only', '-qq', 'libvpx'], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) {
    const detail = (r.stderr || r.stdout || '').trim().split('\n').pop() ?? '';
    throw new Error(`apt-get source --download-only libvpx failed${detail ? `: ${detail}` : ''} (a deb-src entry is needed)`);
  }
}

function build(tarballs, dir) {
  const log = join(dir, 'build.log');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'obj'), { recursive: true });
  run('tar', ['xzf', tarballs.orig, '-C', dir], {}, log);
  const srcName = readdirSync(dir).find((n) => n.startsWith('libvpx-'));
  if (!srcName) throw new Error(`${tarballs.orig} holds no libvpx-* directory`);
  const src = join(dir, srcName);
  run('tar', ['xJf', tarballs.debian, '-C', src], {}, log);
  const series = join(src, 'debian', 'patches', 'series');
  const patches = existsSync(series) ? readFileSync(series, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')) : [];
  for (const p of patches) run('patch', ['-p1', '-s', '-i', join(src, 'debian', 'patches', p)], { cwd: src }, log);
  const prefix = join(dir, 'prefix');
  const obj = join(dir, 'obj');
  run('nice', ['-n', '10', join(src, 'configure'), `--prefix=${prefix}`, ...CONFIGURE_FLAGS], { cwd: obj }, log);
  const jobs = String(Math.max(1, Math.min(2, cpus().length)));
  run('nice', ['-n', '10', 'make', `-j${jobs}`], { cwd: obj }, log);
  run('make', ['install'], { cwd: obj }, log);
  return { prefix, patches: patches.length };
}

/**
 * Makes sure the concealing libvpx is built (or cached) and says which libvpx
 * to link: { kind: 'source', prefix, ... } or { kind: 'system', reason }.
 * `env` defaults to process.env; `say` prints progress. With dryRun, a build
 * that is not cached is not started: { kind: 'planned', key, dir } says where
 * it would go.
 */
export function prepareLibvpx(root, { env = process.env, say = (m) => console.log(m), dryRun = false } = {}) {
  const mode = env.LIBVPX ?? 'auto';
  if (!['auto', 'source', 'system'].includes(mode)) throw new Error(`LIBVPX must be auto, source or system, got "${mode}"`);
  if (mode === 'system') return { kind: 'system', reason: 'LIBVPX=system' };
  const cache = env.LIBVPX_CACHE_DIR || join(root, '.libvpx-cache');
  try {
    if (!have('nasm', env) && !have('yasm', env)) throw new Error('neither nasm nor yasm is installed (libvpx\'s x86 assembly needs one: apt-get install nasm)');
    for (const tool of ['make', 'cc', 'patch', 'tar']) if (!have(tool, env)) throw new Error(`${tool} is not installed`);
    const srcDir = join(cache, 'src');
    let tarballs = findTarballs(srcDir);
    if (!tarballs) {
      say('native-vp8: fetching Debian\'s libvpx source (apt-get source --download-only libvpx)');
      fetchSource(srcDir);
      tarballs = findTarballs(srcDir);
      if (!tarballs) throw new Error(`apt-get source left no libvpx_*.orig.tar.gz and *.debian.tar.xz in ${srcDir}`);
    }
    const origSha = sha256(tarballs.orig);
    const key = createHash('sha256').update(`${origSha}\n${sha256(tarballs.debian)}\n${CONFIGURE_FLAGS.join(' ')}\n`).digest('hex').slice(0, 16);
    const dir = join(cache, `build-${key}`);
    const done = join(dir, 'done.json');
    let cached = true;
    if (!existsSync(done) || !existsSync(join(dir, 'prefix', 'lib', 'libvpx.a'))) {
      if (dryRun) return { kind: 'planned', key, dir };
      cached = false;
      say(`native-vp8: building libvpx with error concealment from ${tarballs.orig} (VP8 only, static; about a minute on 2 cores)`);
      const started = Date.now();
      const { patches } = build(tarballs, dir);
      writeFileSync(done, `${JSON.stringify({ seconds: (Date.now() - started) / 1000, patches }, null, 2)}\n`);
    }
    const record = JSON.parse(readFileSync(done, 'utf8'));
    return {
      kind: 'source', prefix: join(dir, 'prefix'), key, cached, buildSeconds: record.seconds, debianPatches: record.patches,
      tarball: tarballs.orig.split('/').pop(), tarballSha256: origSha, configureFlags: CONFIGURE_FLAGS,
    };
  } catch (error) {
    if (mode === 'source') throw error;
    return { kind: 'system', reason: error.message };
  }
}
