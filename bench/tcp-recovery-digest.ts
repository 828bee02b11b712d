// A digest of the TCP senders' behaviour in loss recovery, for checking that a
// refactoring of src/tcp/ changes nothing: every recovery variant (NewReno's
// partial ACKs without SACK; RFC 6675 with and without PRR; RACK-TLP with
// and without PRR) for both congestion controls, on paths that make them
// recover (random and bursty loss, drop-tail overflow, an LTE trace with
// outages), and short flows. Each run writes every event of the bottleneck
// (arrival, departure, drop, with its time) and the sender's cwnd log and
// counters; the digest is one sha256 per run and one over all of them.
//
//   nice -n 10 node --import tsx bench/tcp-recovery-digest.ts [--seconds 40] [--out DIR]
//
// With --out, each run's full record is written to DIR/NAME.txt, to compare
// two trees' runs line by line when their digests differ.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option, refuseUnknownOptions } from './options.ts';
import type { StageSpec } from '../src/link-emu/chain.ts';
import type { LinkEventSink } from '../src/link-emu/link.ts';
import { constantRateTrace } from '../src/link-emu/trace-generators.ts';
import { loadTrace } from '../src/link-emu/trace-files.ts';
import { createSimNetwork } from '../src/net/sim-network.ts';
import { Simulator } from '../src/net/simulator.ts';
import { tcpBulkFlow } from '../src/tcp/bulk-flow.ts';
import { tcpShortFlows } from '../src/tcp/short-flows.ts';
import type { TcpFlowFactory, TcpFlowOptions } from '../src/tcp/tcp-flow.ts';

refuseUnknownOptions(['out', 'seconds']);

const seconds = Number(option('seconds', '40'));
const out = option('out', '');
if (!(seconds > 0 && seconds <= 3600)) {
  console.error(`tcp-recovery-digest: --seconds must be a number in (0, 3600], got ${option('seconds', '40')}`);
  process.exit(2);
}

const VARIANTS: Record<string, Partial<TcpFlowOptions>> = {
  'newreno-recovery': { sack: false },
  'rfc6675': { sack: true, rackTlp: false, prr: false },
  'rfc6675-prr': { sack: true, rackTlp: false },
  'rack': { sack: true, prr: false },
  'rack-prr': { sack: true },
};

function recordingLink(trace: StageSpec & { kind: 'link' }, lines: string[]): StageSpec {
  const events: LinkEventSink = {
    arrival: (t, size) => lines.push(`a ${t} ${size}`),
    opportunity: () => {},
    departure: (t, size, delay) => lines.push(`d ${t} ${size} ${delay}`),
    drop: (t, packets, bytes) => lines.push(`x ${t} ${packets} ${bytes}`),
  };
  return { ...trace, events };
}

const tmobile = loadTrace(fileURLToPath(new URL('../../shared/traces/TMobile-LTE-short.up', import.meta.url)));

/** The data direction's stages (the bottleneck's events written to `lines`) and the one-way delay of each path. */
const PATHS: Record<string, { oneWayMs: number; uplink: (lines: string[]) => StageSpec[] }> = {
  'loss1pct-20mbps': { oneWayMs: 50, uplink: (lines) => [{ kind: 'loss', rate: 0.01 }, { kind: 'delay', ms: 50 }, recordingLink({ kind: 'link', trace: constantRateTrace({ rateMbps: 20 }) }, lines)] },
  'bursty-10mbps': {
    oneWayMs: 20,
    uplink: (lines) => [{ kind: 'gilbert-elliott', goodToBad: 0.005, badToGood: 0.3 }, { kind: 'delay', ms: 20 }, recordingLink({ kind: 'link', trace: constantRateTrace({ rateMbps: 10 }), queue: 'droptail', queueArgs: 'packets=100' }, lines)],
  },
  'droptail-2.4mbps': { oneWayMs: 50, uplink: (lines) => [{ kind: 'delay', ms: 50 }, recordingLink({ kind: 'link', trace: constantRateTrace({ rateMbps: 2.4 }), queue: 'droptail', queueArgs: 'packets=60' }, lines)] },
  'tmobile-droptail': { oneWayMs: 20, uplink: (lines) => [{ kind: 'delay', ms: 20 }, recordingLink({ kind: 'link', trace: tmobile, queue: 'droptail', queueArgs: 'packets=256' }, lines)] },
};

type Cc = 'newreno' | 'cubic';

/** One run of `seconds`, the flow paused for 1.5 s at a third of it: its record (bottleneck events, counters, transfers, cwnd log). */
async function runOne(factory: (cc: Cc, variant: Partial<TcpFlowOptions>) => TcpFlowFactory, cc: Cc, variant: Partial<TcpFlowOptions>, path: string, seed: number) {
  const lines: string[] = [];
  const sim = new Simulator();
  const net = createSimNetwork(sim, { uplink: PATHS[path].uplink(lines), downlink: [{ kind: 'delay', ms: PATHS[path].oneWayMs }], seed });
  const flow = factory(cc, variant).create(net.inside, net.outside, { flowId: 0, seed: String(seed) });
  sim.at(0, () => flow.start());
  sim.at((seconds * 1000) / 3, () => flow.pause());
  sim.at((seconds * 1000) / 3 + 1500, () => flow.resume());
  await sim.run({ until: seconds * 1000 });
  flow.stop();
  const { cwnd, transfers, ...counters } = flow.stats();
  lines.push(JSON.stringify(counters));
  for (const t of transfers) lines.push(`t ${t.connection} ${t.bytes} ${t.startMs} ${t.endMs}`);
  for (const c of cwnd) lines.push(`c ${c.timeMs} ${c.connection} ${c.cwndBytes} ${c.ssthreshBytes} ${c.recovery}`);
  return { text: lines.join('\n') + '\n', counters };
}

const bulk = (cc: Cc, variant: Partial<TcpFlowOptions>) => tcpBulkFlow({ cc, recordCwnd: true, ...variant });
const short = (cc: Cc, variant: Partial<TcpFlowOptions>) => tcpShortFlows({ cc, recordCwnd: true, startOn: true, meanIdleMs: 2000, connectionsPerBurst: 10, ...variant });

if (out !== '') mkdirSync(out, { recursive: true });
const all = createHash('sha256');
for (const [kind, factory] of [['bulk', bulk], ['short', short]] as const) {
  for (const cc of ['newreno', 'cubic'] as const) {
    for (const [variantName, variant] of Object.entries(VARIANTS)) {
      for (const path of Object.keys(PATHS)) {
        for (const seed of kind === 'bulk' ? [1, 2] : [1]) {
          const name = `${kind}-${cc}-${variantName}-${path}-s${seed}`;
          const { text, counters } = await runOne(factory, cc, variant, path, seed);
          const digest = createHash('sha256').update(text).digest('hex');
          all.update(`${name} ${digest}\n`);
          if (out !== '') writeFileSync(join(out, `${name}.txt`), text);
          console.log(`${digest.slice(0, 16)} ${name} rtx ${counters.retransmits} fast ${counters.fastRetransmits} rto ${counters.timeouts} tlp ${counters.lossProbes}`);
        }
      }
    }
  }
}
console.log(`all ${all.digest('hex')}`);
