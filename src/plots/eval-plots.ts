// The eval's pictures, as Vega-Lite specifications built from data (pure):
// - per scenario, the paper's picture: p95 signal delay (log scale, reversed,
//   so that better is to the right) against mean SSIM (dB), one point per
//   scheme of ours (circles), the paper's published points (diamonds, hollow)
//   and the oracle's point (a triangle) with dashed rules through it, the
//   bound no real sender passes;
// - per run, its time series (bins of the eval's series.ts): the link's
//   capacity (filled) and the video delivered, the signal delay (median and
//   largest of the frames captured in each bin), the SSIM of the frames
//   shown, and the frames skipped and lost.
// Each layer has a name (`NAME_marks` in the SVG), so tests can count marks.
import type { TopLevelSpec } from 'vega-lite';

export interface ScenarioPoint {
  readonly label: string;
  readonly kind: 'ours' | 'paper' | 'oracle';
  readonly p95DelayMs: number;
  readonly ssimDb: number;
}

export interface SeriesPoint {
  readonly t: number;
  readonly capacityMbps: number;
  readonly deliveredMbps: number;
  readonly delayMedianMs: number | null;
  readonly delayMaxMs: number | null;
  readonly ssimDb: number | null;
  readonly skipped: number;
  readonly lost: number;
}

export const SCENARIO_LAYERS = { ours: 'ours', paper: 'paper', oracle: 'oracle', bound: 'bound', labels: 'labels' } as const;
export const SERIES_LAYERS = {
  capacity: 'capacity', delivered: 'delivered', delayMedian: 'delay_median', delayMax: 'delay_max', ssim: 'ssim', skipped: 'skipped', lost: 'lost',
} as const;

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const plottable = (p: ScenarioPoint) => Number.isFinite(p.p95DelayMs) && p.p95DelayMs > 0 && Number.isFinite(p.ssimDb);

/** The points a scenario's picture draws: those with a finite, positive p95 and a finite SSIM. */
export function plottedPoints(points: readonly ScenarioPoint[]): ScenarioPoint[] {
  return points.filter(plottable);
}

export function scenarioSpec(title: string, points: readonly ScenarioPoint[]): TopLevelSpec {
  const values = plottedPoints(points).map((p) => ({ ...p, name: p.kind === 'paper' ? `${p.label} (paper)` : p.label }));
  const delays = values.map((v) => v.p95DelayMs);
  const low = delays.length ? Math.min(...delays) / 1.5 : 10;
  const high = delays.length ? Math.max(...delays) * 1.5 : 1000;
  const x = { field: 'p95DelayMs', type: 'quantitative', title: '95th percentile signal delay (ms, log scale; better to the right)', scale: { type: 'log', reverse: true, domain: [low, high], nice: false } };
  const y = { field: 'ssimDb', type: 'quantitative', title: 'mean SSIM (dB; better up)', scale: { zero: false, padding: 20 } };
  const colour = { field: 'label', type: 'nominal', title: 'scheme', legend: { orient: 'right' } };
  const only = (kind: ScenarioPoint['kind']) => [{ filter: `datum.kind === '${kind}'` }];
  const tooltip = [{ field: 'name', title: 'scheme' }, { field: 'p95DelayMs', title: 'p95 delay (ms)' }, { field: 'ssimDb', title: 'SSIM (dB)' }];
  return {
    $schema: SCHEMA,
    background: 'white',
    padding: 10,
    title: { text: title, anchor: 'start', subtitle: "filled circles: this toolkit's runs; hollow diamonds: the paper's published figures; triangle and dashed rules: the oracle (the bound)" },
    width: 520,
    height: 320,
    data: { values },
    layer: [
      { name: SCENARIO_LAYERS.bound, transform: only('oracle'), mark: { type: 'rule', strokeDash: [4, 4], color: '#888' }, encoding: { x } },
      { name: `${SCENARIO_LAYERS.bound}_ssim`, transform: only('oracle'), mark: { type: 'rule', strokeDash: [4, 4], color: '#888' }, encoding: { y } },
      { name: SCENARIO_LAYERS.ours, transform: only('ours'), mark: { type: 'point', shape: 'circle', filled: true, size: 90 }, encoding: { x, y, color: colour, tooltip } },
      { name: SCENARIO_LAYERS.paper, transform: only('paper'), mark: { type: 'point', shape: 'diamond', filled: false, size: 110, strokeWidth: 2 }, encoding: { x, y, color: colour, tooltip } },
      { name: SCENARIO_LAYERS.oracle, transform: only('oracle'), mark: { type: 'point', shape: 'triangle-up', filled: true, size: 120, color: '#333' }, encoding: { x, y, tooltip } },
      { name: SCENARIO_LAYERS.labels, transform: [{ filter: "datum.kind !== 'paper'" }], mark: { type: 'text', align: 'left', dx: 7, dy: -7, fontSize: 10 }, encoding: { x, y, text: { field: 'name' } } },
    ],
    config: { view: { stroke: '#ccc' } },
  } as unknown as TopLevelSpec;
}

export function seriesSpec(title: string, bins: readonly SeriesPoint[], window?: { fromS: number; toS: number }): TopLevelSpec {
  const values = bins.map((b) => ({ ...b, middle: b.t + 0.25 }));
  const end = bins.length ? bins[bins.length - 1]!.t + 0.5 : 1;
  const x = { field: 't', type: 'quantitative', title: 'time (s)', scale: { domain: [0, end], nice: false } };
  const width = 640;
  const legend = (domain: string[], range: string[]) => ({ scale: { domain, range }, legend: { orient: 'top', title: null, labelLimit: 400 } });
  const tp = legend(['capacity', 'delivered video'], ['#9ecae1', '#0020a0']);
  const dl = legend(['median signal delay', 'largest signal delay'], ['#4c78a8', '#e45756']);
  const ev = legend(['skipped', 'lost'], ['#f58518', '#d62728']);
  const windowLayer = window ? [{ name: 'window', data: { values: [{ from: window.fromS, to: window.toS }] }, mark: { type: 'rect', color: '#000', opacity: 0.04 }, encoding: { x: { field: 'from', type: 'quantitative', scale: x.scale }, x2: { field: 'to' } } }] : [];
  const panel = (layers: unknown[], height = 140) => ({ width, height, layer: [...windowLayer, ...layers] });
  return {
    $schema: SCHEMA,
    background: 'white',
    padding: 10,
    title: { text: title, anchor: 'start', subtitle: window ? `shaded: the measured window [${window.fromS}, ${window.toS}) s; bins of 500 ms` : 'bins of 500 ms' },
    data: { values },
    vconcat: [
      panel([
        { name: SERIES_LAYERS.capacity, mark: { type: 'area', interpolate: 'step-after', opacity: 0.6 }, encoding: { x, y: { field: 'capacityMbps', type: 'quantitative', title: 'Mbit/s' }, color: { datum: 'capacity', type: 'nominal', ...tp } } },
        { name: SERIES_LAYERS.delivered, mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.2 }, encoding: { x, y: { field: 'deliveredMbps', type: 'quantitative' }, color: { datum: 'delivered video', type: 'nominal', ...tp } } },
      ]),
      panel([
        { name: SERIES_LAYERS.delayMax, transform: [{ filter: 'datum.delayMaxMs != null' }], mark: { type: 'line', strokeWidth: 1 }, encoding: { x, y: { field: 'delayMaxMs', type: 'quantitative', title: 'signal delay (ms, log)', scale: { type: 'log' } }, color: { datum: 'largest signal delay', type: 'nominal', ...dl } } },
        { name: SERIES_LAYERS.delayMedian, transform: [{ filter: 'datum.delayMedianMs != null' }], mark: { type: 'line', strokeWidth: 1.5 }, encoding: { x, y: { field: 'delayMedianMs', type: 'quantitative', scale: { type: 'log' } }, color: { datum: 'median signal delay', type: 'nominal', ...dl } } },
      ]),
      panel([
        { name: SERIES_LAYERS.ssim, transform: [{ filter: 'datum.ssimDb != null' }], mark: { type: 'line', strokeWidth: 1, color: '#54a24b' }, encoding: { x, y: { field: 'ssimDb', type: 'quantitative', title: 'SSIM of shown frames (dB)', scale: { zero: false } } } },
      ], 110),
      panel([
        { name: SERIES_LAYERS.skipped, transform: [{ filter: 'datum.skipped > 0' }], mark: { type: 'point', shape: 'circle', size: 14, filled: true }, encoding: { x: { ...x, field: 'middle' }, y: { field: 'skipped', type: 'quantitative', title: 'frames per 500 ms' }, color: { datum: 'skipped', type: 'nominal', ...ev } } },
        { name: SERIES_LAYERS.lost, transform: [{ filter: 'datum.lost > 0' }], mark: { type: 'point', shape: 'cross', size: 30, filled: true }, encoding: { x: { ...x, field: 'middle' }, y: { field: 'lost', type: 'quantitative' }, color: { datum: 'lost', type: 'nominal', ...ev } } },
      ], 80),
    ],
    resolve: { scale: { color: 'independent' } },
    config: { view: { stroke: '#ccc' } },
  } as unknown as TopLevelSpec;
}
