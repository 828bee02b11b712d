// Where the benchmarks find Mahimahi's mm-link (the reference linkshell is
// measured against) and how they run it. Not a benchmark itself.
//
// mm-link is looked for in .cache/mahimahi/bin (bench/build-mahimahi.sh builds
// it there), then on PATH. It is setuid root and refuses a real uid of 0, so
// when a benchmark runs as root mm-link runs as another user (--mm-user,
// default `nobody`) through setpriv. It also wants net.ipv4.ip_forward=1:
// mahimahiProblem() says when that is missing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The Mahimahi binary `name` (mm-link, mm-delay, ...): the given path, else the one bench/build-mahimahi.sh built, else PATH's; '' if none. */
export function findMahimahi(name: string, given = ''): string {
  if (given !== '') return given;
  const built = `${root}.cache/mahimahi/bin/${name}`;
  if (existsSync(built)) return built;
  const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : '';
}

/** Why `binary` cannot run here (not setuid root, IP forwarding off), or undefined. */
export function mahimahiProblem(binary: string): string | undefined {
  const st = statSync(binary, { throwIfNoEntry: false });
  if (st === undefined) return `${binary} does not exist`;
  if (st.uid !== 0 || (st.mode & 0o4000) === 0) return `${binary} is not setuid root (run bench/build-mahimahi.sh as root, or chown root and chmod u+s it)`;
  if (readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim() !== '1') return 'net.ipv4.ip_forward is 0: mm-link refuses to start (sysctl -w net.ipv4.ip_forward=1)';
  return undefined;
}

/** The command line that runs `argv` (an mm-* command) as `user` when this process is root (mm-link refuses root), else as is. */
export function asMahimahiUser(argv: string[], user: string): string[] {
  if (process.getuid?.() !== 0) return argv;
  const group = spawnSync('id', ['-gn', user], { encoding: 'utf8' });
  if (group.status !== 0) throw new Error(`--mm-user ${user}: no such user`);
  return ['setpriv', `--reuid=${user}`, `--regid=${group.stdout.trim()}`, '--init-groups', ...argv];
}
