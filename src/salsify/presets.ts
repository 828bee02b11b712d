// The Salsify paper's scenarios (NSDI 2018, Fig. 5-8), as plain data: each
// preset is a partial simulator config (sim-runner.ts) that `salsify sim
// --preset NAME` and runSalsifySim({ preset }) expand before any explicit
// option, so that every field stays overridable. The names are the
// `scenario` column of ../shared/reference/salsify-paper-results.csv.
//
// How the paper ran its evaluation, checked against the authors' released
// results (excamera/salsify-results: scripts/aggregate-stats.py, the per-run
// downlink.log and analysis.csv files):
//
// - Window. The 640 s clip (38,400 frames at 60 fps) started about 62 s into
//   the trace (0.57mbps-poisson/salsify-1: the downlink log's base timestamp
//   is 1518819730332 ms, source frame 0 left at about 1518819793200 ms, 62.9 s
//   later; the log ends 704.6 s after its base). The sender was streaming
//   before the clip began. So every preset captures 702 s from the trace's
//   start and measures the source frames captured in [62 s, 702 s): a minute
//   of warm-up, then the paper's 640 s.
// - Emulator: a Cellsim derivative. Its logs count Ethernet frames and give
//   every delivery opportunity 1514 bytes ("# 1514" lines); a full Salsify
//   datagram is a 1464-byte frame there. We use 1514-byte opportunities and
//   count each datagram with 42 bytes of Ethernet (14), IPv4 (20) and UDP (8)
//   headers, so that a datagram of the largest size (1472 bytes) fills one
//   opportunity exactly, as a full-size frame does in Cellsim (Mahimahi's
//   defaults, 1504 and 32, give the same one-datagram-per-opportunity rate).
// - 20 ms of one-way delay in each direction, before the trace-driven queue:
//   in our path model (link-emu/path.ts) the downlink crosses mm-delay before
//   mm-link, which is "before the queue" for the video, as in the paper. On
//   the uplink Mahimahi's nesting puts the delay after the link, so an
//   acknowledgement meets the uplink trace 20 ms earlier than in Cellsim: it
//   may take a different opportunity, but its total delay is the same in
//   distribution (the uplink is lightly loaded); we kept the one path model
//   rather than a second ordering for the uplink.
// - Queues: drop-tail, 64, 256 or 1024 packets on Verizon (the verizon-lte
//   rows are 256). The other rows name no buffer, and the emulator's logs show
//   none: Sprout's Cellsim (keithw/sprout src/examples/cellsim.cc), whose log
//   format ("Initialized X queue with N services", "#" opportunities, "+"
//   arrivals, "-" departures) the paper's emulator kept, has no queue limit,
//   and the released logs of the runs without a buffer size
//   (excamera/salsify-results benchmarks/Verizon-LTE-short/*, 500kbps/*)
//   record queues of up to 485 packets (350 kB) with no drop at entry. So
//   att-lte, tmobile-umts, on-off and wifi have an unbounded queue
//   ('infinite'), as the reference's had. (The wifi logs also mark some
//   arrivals "(dropped)": 683 of the Salsify-1 run's 61,315, at queue lengths
//   from 14 to 43 packets and 840 to 32,443 bytes, so not a buffer limit; we
//   do not model them.) The buffer sweep is also run on att-lte and
//   tmobile-umts (att-lte-64 ... tmobile-umts-1024, not in the paper), whose
//   fades are deeper than the Verizon stand-in's; Salsify-1 (model codec,
//   paper timing) still keeps its queue short there: p95 376 / 368 / 368 ms
//   on att-lte and 1400 / 1329 / 1329 on tmobile-umts at 64 / 256 / 1024.
// - on-off: the 12 Mbit/s trace (12mbps, one opportunity per millisecond)
//   with exponentially distributed on periods of mean 5 s and off periods of
//   mean 0.2 s (mm-onoff semantics: packets arriving while off are lost).
// - wifi: 0.57mbps-poisson with about 4.8 % of downlink packets lost at
//   delivery (the salsify-1 run's log: 60,632 arrivals, 57,713 departures,
//   2,919 = 4.81 % missing, no queue drops). "At delivery": the lost packet
//   has used its delivery opportunity, so the loss stage sits after the link
//   (downlinkLossAt 'delivery'), not before it as mm-loss would.
// - Verizon-LTE-driving (Mahimahi's, 7.8 MB) is not among our traces
//   (../shared/traces). The verizon-lte and buffer-N presets run it when the
//   trace lookup (link-emu/trace-files.ts: ./traces, $LINKSHELL_TRACES,
//   ../shared/traces, Mahimahi's install directories) finds both its files,
//   and Verizon-LTE-short as a labelled stand-in otherwise; the label, the
//   trace names in the config (and so the eval store's key) say which ran.
// - Other traffic on the downlink: 4,000 bytes a second in 100-byte packets
//   (on the link), from the start, beside the sender's. The bench's machines
//   sent some through the emulator: the runs whose downlink log shows the
//   time before their sender started carried 5.5 kB/s (wifi salsify-1, 48.8
//   packets a second, 113 bytes on average) and 4.4 kB/s (500kbps
//   salsify-2, 45.2 a second, 96 bytes); the T-Mobile Salsify-1 run's
//   opportunities carried 3.6 and 4.7 kB/s beside its video in [40, 61.85)
//   and [61.85, 76) s (bench/salsify-tmobile-outage.ts). Its rate and size
//   are those runs', not fitted to a row; its timing (regular) is ours, as
//   the logs do not say. It is a few percent of most links and matters on
//   T-Mobile's near-outage from 40 to 80 s, where it is 40 to 50 % of what
//   the link carries (docs/paper-reproduction.md, "The T-Mobile backlog at
//   62 s"); downlinkOtherTraffic null runs a preset without it.
// (sim-runner.ts imports this module and checks that a PresetConfig is a
// valid part of its config, so this one does not import it.)

import { resolveTraceName, type TraceLookupOptions } from '../link-emu/trace-files.ts';

/** The fields a preset sets (the simulator config's, sim-runner.ts); everything else keeps the simulator's defaults. */
export interface PresetConfig {
  readonly preset: string;
  readonly downlink: string;
  readonly uplink: string;
  readonly durationS: number;
  readonly measureFromS: number;
  readonly measureForS: number;
  readonly delayMs: number;
  readonly queue: string;
  readonly queueArgs: string;
  readonly mtu: number;
  readonly overheadBytes: number;
  readonly downlinkLoss?: number;
  readonly downlinkLossAt?: 'entry' | 'delivery';
  readonly downlinkOnOff?: { readonly meanOnMs: number; readonly meanOffMs: number };
  readonly downlinkOtherTraffic: { readonly bytesPerS: number; readonly packetBytes: number };
}

export interface SimPreset {
  readonly name: string;
  /** What the preset stands for, with "(stand-in: ...)" where our trace is not the paper's. */
  readonly label: string;
  /** The trace it runs (its files are TRACE.down and TRACE.up). */
  readonly trace: string;
  /** The trace the paper used, when ours is a stand-in for it. */
  readonly standInFor?: string;
  readonly config: PresetConfig;
}

/** The paper's window: capture from the trace's start, measure [62 s, 702 s). */
export const PAPER_WARMUP_S = 62;
export const PAPER_MEASURE_S = 640;
/** Cellsim's delivery opportunity (an Ethernet frame) and the headers each datagram carries there. */
export const CELLSIM_MTU = 1514;
export const CELLSIM_OVERHEAD_BYTES = 14 + 20 + 8;
export const PAPER_DELAY_MS = 20;
export const PAPER_QUEUE_PACKETS = 256;
/** The bench's own traffic on the paper's downlink (bytes a second and bytes a packet, on the link). */
export const PAPER_OTHER_TRAFFIC = { bytesPerS: 4000, packetBytes: 100 } as const;
/** The buffer sweep's sizes (packets). */
export const BUFFER_SWEEP_PACKETS = [64, 256, 1024] as const;

const COMMON = {
  durationS: PAPER_WARMUP_S + PAPER_MEASURE_S,
  measureFromS: PAPER_WARMUP_S,
  measureForS: PAPER_MEASURE_S,
  delayMs: PAPER_DELAY_MS,
  queue: 'droptail',
  queueArgs: `packets=${PAPER_QUEUE_PACKETS}`,
  mtu: CELLSIM_MTU,
  overheadBytes: CELLSIM_OVERHEAD_BYTES,
  downlinkOtherTraffic: PAPER_OTHER_TRAFFIC,
} as const;

const trace = (name: string) => ({ downlink: `${name}.down`, uplink: `${name}.up` });
/** Cellsim's queue: no limit. */
const UNBOUNDED = { queue: 'infinite', queueArgs: '' } as const;

/** The paper's Verizon trace, and the one that stands in for it when the lookup does not find it. */
export const VERIZON_TRACE = 'Verizon-LTE-driving';
export const VERIZON_STAND_IN = 'Verizon-LTE-short';

function findsFile(name: string, lookup: TraceLookupOptions): boolean {
  try {
    resolveTraceName(name, lookup);
    return true;
  } catch {
    return false;
  }
}

/** The Verizon trace the presets run: Verizon-LTE-driving when the lookup finds both its files, else the stand-in. */
export function verizonTrace(lookup: TraceLookupOptions = {}): string {
  const found = findsFile(`${VERIZON_TRACE}.down`, lookup) && findsFile(`${VERIZON_TRACE}.up`, lookup);
  return found ? VERIZON_TRACE : VERIZON_STAND_IN;
}

/** A Verizon preset on `traceName`: the paper's trace, or the stand-in, labelled as one. */
const verizon = (traceName: string, packets: number, name: string, title: string): SimPreset => {
  const standIn = traceName !== VERIZON_TRACE;
  return {
    name,
    label: standIn ? `${title} (stand-in: ${traceName})` : title,
    trace: traceName,
    ...(standIn ? { standInFor: VERIZON_TRACE } : {}),
    config: { ...COMMON, ...trace(traceName), queueArgs: `packets=${packets}`, preset: name },
  };
};

/** A cellular trace with a drop-tail buffer of `packets` (the sweep beyond the paper's Verizon rows). */
const buffered = (traceName: string, base: string, packets: number): SimPreset => ({
  name: `${base}-${packets}`,
  label: `${traceName} droptail ${packets} (buffer sweep; not in the paper)`,
  trace: traceName,
  config: { ...COMMON, ...trace(traceName), queueArgs: `packets=${packets}`, preset: `${base}-${packets}` },
});

/** Every preset, the Verizon ones on `verizonTraceName`. */
function presetList(verizonTraceName: string): readonly SimPreset[] {
  const v = verizonTraceName;
  return [
    { name: 'att-lte', label: 'ATT-LTE-driving (unbounded queue)', trace: 'ATT-LTE-driving', config: { ...COMMON, ...trace('ATT-LTE-driving'), ...UNBOUNDED, preset: 'att-lte' } },
    { name: 'tmobile-umts', label: 'TMobile-UMTS-driving (unbounded queue)', trace: 'TMobile-UMTS-driving', config: { ...COMMON, ...trace('TMobile-UMTS-driving'), ...UNBOUNDED, preset: 'tmobile-umts' } },
    verizon(v, PAPER_QUEUE_PACKETS, 'verizon-lte', VERIZON_TRACE),
    {
      name: 'on-off',
      label: '12mbps (intermittent: on mean 5 s, off mean 0.2 s; unbounded queue)',
      trace: '12mbps',
      config: { ...COMMON, ...trace('12mbps'), ...UNBOUNDED, downlinkOnOff: { meanOnMs: 5000, meanOffMs: 200 }, preset: 'on-off' },
    },
    {
      name: 'wifi',
      label: '0.57mbps-poisson (4.8 % downlink loss at delivery; unbounded queue)',
      trace: '0.57mbps-poisson',
      config: { ...COMMON, ...trace('0.57mbps-poisson'), ...UNBOUNDED, downlinkLoss: 0.048, downlinkLossAt: 'delivery', preset: 'wifi' },
    },
    ...BUFFER_SWEEP_PACKETS.map((n) => verizon(v, n, `buffer-${n}`, `${VERIZON_TRACE} droptail ${n}`)),
    ...BUFFER_SWEEP_PACKETS.map((n) => buffered('ATT-LTE-driving', 'att-lte', n)),
    ...BUFFER_SWEEP_PACKETS.map((n) => buffered('TMobile-UMTS-driving', 'tmobile-umts', n)),
  ];
}

export const PRESET_NAMES: readonly string[] = presetList(VERIZON_STAND_IN).map((p) => p.name);

/** Every preset by name, the Verizon ones on the trace the lookup finds now (verizonTrace). */
export function simPresets(lookup: TraceLookupOptions = {}): ReadonlyMap<string, SimPreset> {
  return new Map(presetList(verizonTrace(lookup)).map((p) => [p.name, p]));
}

function checkName(name: string): void {
  if (!PRESET_NAMES.includes(name)) throw new RangeError(`unknown preset ${JSON.stringify(name)} (expected one of ${PRESET_NAMES.join(', ')})`);
}

/** The preset called `name`, its Verizon trace found by `lookup` (verizonTrace); a RangeError naming the known ones otherwise. */
export function simPreset(name: string, lookup: TraceLookupOptions = {}): SimPreset {
  checkName(name);
  return simPresets(lookup).get(name)!;
}

/**
 * The preset called `name` as it is when the Verizon presets run
 * `verizonTraceName` (VERIZON_TRACE or VERIZON_STAND_IN), whatever the lookup
 * finds now: what describes a stored run, whose config names the trace it ran.
 */
export function simPresetOn(name: string, verizonTraceName: string): SimPreset {
  checkName(name);
  if (verizonTraceName !== VERIZON_TRACE && verizonTraceName !== VERIZON_STAND_IN) {
    throw new RangeError(`unknown Verizon trace ${JSON.stringify(verizonTraceName)} (expected ${VERIZON_TRACE} or ${VERIZON_STAND_IN})`);
  }
  return presetList(verizonTraceName).find((p) => p.name === name)!;
}

/** A config with its preset expanded underneath: the preset's fields, then every field given explicitly. */
export function expandPreset<C extends { readonly preset?: string }>(config: C): C & Partial<PresetConfig> {
  if (config.preset === undefined) return config;
  const preset = simPreset(config.preset);
  const explicit = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as C;
  return { ...preset.config, ...explicit };
}
