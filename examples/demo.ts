// `npm run demo`: Salsify (salsify-1) against its baseline (conventional-1s)
// over an emulated cellular link: the paper's att-lte scenario (the
// ATT-LTE-driving trace from ../shared/traces, 20 ms each way, a drop-tail
// queue of 256 packets, 702 s captured and [62, 702) s measured, the paper's
// encode timing), as a short `salsify eval` with the model codec (VP8, at about
// 14 ms of CPU per frame, would take about 10 minutes for this window on 2 cores), in the deterministic
// simulator. It prints the
// table beside the paper's rows and the path of its report (demo-out/:
// report.html, results.json, results.csv, plots/). Extra arguments go to
// `salsify eval` (e.g. `npm run demo -- --measure-for 20`).
import { main } from '../src/cli/salsify.ts';

process.env.LINKSHELL_TRACES ??= new URL('../../shared/traces', import.meta.url).pathname;
const args = ['eval', '--scenarios', 'att-lte', '--schemes', 'salsify-1,conventional-1s', '--codec', 'model', '--encode-timing', 'paper', '--out', 'demo-out', ...process.argv.slice(2)];
console.log(`Salsify demo: salsify ${args.join(' ')}`);
console.log('(virtual time: the same command gives the same figures on any machine; results are cached in demo-out/store, so a second run is instant)\n');
process.exitCode = await main(args);
