// `npm run demo`: Salsify (salsify-1) against the conventional-1s baseline, each
// sending 10 s of 720p60 synthetic video with the real VP8 codec over the same
// emulated cellular link (the repository's own traces/cellular-6mbps.trace on
// the video's direction, its uplink twin for the acknowledgements, a drop-tail
// queue of 256 packets), in the deterministic simulator. Extra arguments are
// passed to `salsify sim` (e.g. `npm run demo -- --duration 30 --codec model`).
// The report (per scheme: the run's JSON and per-frame CSV; summary.csv) goes
// to demo-out/.
import { main } from '../src/cli/salsify.ts';

const args = [
  'sim',
  '--downlink', 'traces/cellular-6mbps.trace',
  '--uplink', 'traces/cellular-6mbps-up.trace',
  '--scheme', 'salsify-1,conventional-1s',
  '--codec', 'vp8',
  '--video', 'synthetic',
  '--duration', '10',
  '--log-dir', 'demo-out',
  ...process.argv.slice(2),
];
console.log(`Salsify demo: salsify ${args.join(' ')}`);
console.log('(virtual time: the same command gives the same figures on any machine; "wall" is this machine\'s time)\n');
process.exitCode = await main(args);
if (process.exitCode === 0) console.log('\nreport: demo-out/summary.csv, demo-out/SCHEME.json (config, counters, summary), demo-out/SCHEME.frames.csv (every source frame)');
