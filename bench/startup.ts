// Start-up time of the command-line tools against Node's own: `node -e 0`, `linkshell --help` and
// `salsify --help` as bin/ runs them (the JavaScript built in dist/), and, for comparison, linkshell
// run from its TypeScript source through tsx (what bin/ did before the build, and still does when
// dist/ is stale). The commands are run in turns, so that the machine's load weighs on each alike;
// prints the median wall time of each and its ratio to `node -e 0` (the target is at most 3x).
//
// Usage: node --import tsx bench/startup.ts [runs=15]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.argv[2] ?? 15);
if (!Number.isInteger(runs) || runs < 1 || runs > 1000) {
  console.error(`bench/startup.ts: runs must be an integer in 1..1000, got ${JSON.stringify(process.argv[2])}`);
  process.exit(2);
}

// bin/ runs dist/ only when it is current: build it first, so the figures are of the built files.
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const commands: { name: string; args: string[] }[] = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'linkshell --help', args: ['bin/linkshell.js', '--help'] },
  { name: 'salsify --help', args: ['bin/salsify.js', '--help'] },
  { name: 'linkshell --help through tsx', args: ['--import', 'tsx', 'src/cli/linkshell.ts', '--help'] },
];

function timeOnce(args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const stderr = r.stderr.toString().trim();
  if (r.status !== 0 || stderr !== '') {
    throw new Error(`node ${args.join(' ')} exited ${r.status}${stderr ? `: ${stderr.split('\n')[0]}` : ''}`);
  }
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const times = commands.map(() => [] as number[]);
for (const c of commands) timeOnce(c.args); // warm the file cache
for (let i = 0; i < runs; i++) commands.forEach((c, k) => times[k].push(timeOnce(c.args)));

const base = median(times[0]);
console.log(`start-up, median of ${runs} runs in turns (node ${process.version})`);
console.log('| command | median ms | min ms | vs node -e 0 |');
console.log('|---|---|---|---|');
commands.forEach((c, k) => {
  const m = median(times[k]);
  console.log(`| ${c.name} | ${m.toFixed(0)} | ${Math.min(...times[k]).toFixed(0)} | ${(m / base).toFixed(2)}x |`);
});
