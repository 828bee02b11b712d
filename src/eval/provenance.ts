// Where and how an eval's outputs were made, for the report's provenance
// block: the toolkit's git commit (and whether its tracked files had
// uncommitted changes), its package version, the date the eval started and
// ended, the machine (CPU model and cores, memory, OS; no host name), the
// load average at the start and the end, Node's version, and the versions of
// libvpx (from the VP8 addon) and the browsers (Chromium, Firefox) of included WebRTC calls where
// the runs used them. Collected at the edges (startProvenance, then
// finishProvenance); provenanceHtml is pure.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { escapeHtml } from '../plots/render.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ProvenanceStart {
  readonly startedAt: string;
  readonly loadStart: readonly number[];
}

export interface Provenance extends ProvenanceStart {
  /** null: not a git checkout (an installed package). */
  readonly commit: string | null;
  readonly dirty: boolean | null;
  readonly packageVersion: string;
  readonly finishedAt: string;
  readonly loadEnd: readonly number[];
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  /** libvpx's version, and whether the runs used it (the VP8 codec). */
  readonly libvpx: { readonly version: string | null; readonly used: boolean };
  /** The browsers of included WebRTC calls (their labels: "webrtc (Chromium 156)", "webrtc (Firefox 153)"). */
  readonly chromium: readonly string[];
  /** How the outputs were made: a local pool, or collected from a Slurm array's store. */
  readonly how: string;
}

export function startProvenance(now = new Date()): ProvenanceStart {
  return { startedAt: now.toISOString(), loadStart: loadavg() };
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
  } catch {
    return null;
  }
}

async function libvpxVersion(): Promise<string | null> {
  try {
    const { describeLibvpx, libvpxBuild } = await import('../codec-bridge/native.ts');
    return describeLibvpx(libvpxBuild());
  } catch {
    return null;
  }
}

export async function finishProvenance(start: ProvenanceStart, uses: { codec: string; browsers: readonly string[]; how: string }, now = new Date()): Promise<Provenance> {
  const commit = git(['rev-parse', 'HEAD']);
  const status = commit === null ? null : git(['status', '--porcelain', '--untracked-files=no']);
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string };
  const cpuList = cpus();
  return {
    ...start,
    commit, dirty: status === null ? null : status !== '',
    packageVersion: pkg.version,
    finishedAt: now.toISOString(), loadEnd: loadavg(),
    cpu: cpuList[0]?.model.trim() ?? 'unknown', cores: cpuList.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()} ${arch()}`,
    node: process.version,
    libvpx: { version: await libvpxVersion(), used: uses.codec === 'vp8' },
    chromium: [...new Set(uses.browsers)],
    how: uses.how,
  };
}

const loads = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(', ');

/** The provenance block of the report: one <section id="provenance"> (tests compare reports without it). */
export function provenanceHtml(p: Provenance): string {
  const commit = p.commit === null ? 'not a git checkout' : `${p.commit}${p.dirty ? ' (with uncommitted changes to tracked files)' : ''}`;
  const rows: [string, string][] = [
    ['toolkit', `lowlat-video-toolkit ${p.packageVersion}, commit ${commit}`],
    ['made', `${p.how}; started ${p.startedAt}, finished ${p.finishedAt}`],
    ['machine', `${p.cpu}, ${p.cores} cores, ${p.memoryGiB} GiB, ${p.os}`],
    ['load average (1, 5, 15 min)', `at the start ${loads(p.loadStart)}; at the end ${loads(p.loadEnd)}`],
    ['Node', p.node],
    ['libvpx', `${p.libvpx.version ?? 'VP8 addon not built'}${p.libvpx.used ? '' : ' (not used by these runs: the model codec)'}`],
    ['browsers (included WebRTC calls)', p.chromium.length ? p.chromium.join(', ') : 'not used'],
  ];
  return `<section id="provenance">\n<h2>Provenance</h2>\n<table class="provenance">\n${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('\n')}\n</table>\n</section>`;
}
