// The eval's pictures, as Vega-Lite specifications built from data (pure):
// - per scenario, the paper's picture: p95 signal delay (log scale, reversed,
//   so that better is to the right, as the "better" arrow says) against mean
//   SSIM (dB), one point per scheme of ours (filled circles, the mean over
//   seeds with bars from the least to the greatest seed), the paper's
//   published points (hollow diamonds) and the oracle's point (a triangle)
//   with dashed rules through it, the bound no real sender passes. Each
//   scheme has its own hue (SCHEME_COLOURS); the legend shows both the
//   schemes' colours and the marks' shapes. A delay far beyond the others is
//   drawn at the axis's left edge with its value, a scheme that showed no
//   frame at the bottom edge with the reason: none is dropped
//   (scenario-layout.ts places them and the labels);
// - per run, its time series (bins of the eval's series.ts): the link's
//   capacity (filled; an on-off link's off periods shaded), the video sent
//   and delivered, the signal delay (median and largest of the frames
//   captured in each bin), the SSIM of the frames shown, and the frames
//   skipped and lost. A bin without a frame is a gap in its line.
// Each layer has a name (`NAME_marks` in the SVG), so tests can count marks.
import type { TopLevelSpec } from 'vega-lite';
import { LABEL_POSITIONS, layoutScenario, PLOT, type PlacedPoint, type ScenarioPoint } from './scenario-layout.ts';

export type { ScenarioPoint } from './scenario-layout.ts';

export interface SeriesPoint {
  readonly t: number;
  readonly capacityMbps: number;
  /** Video sent by the sender in the bin (absent in results stored before it was recorded). */
  readonly sentMbps?: number;
  readonly deliveredMbps: number;
  readonly delayMedianMs: number | null;
  readonly delayMaxMs: number | null;
  readonly ssimDb: number | null;
  readonly skipped: number;
  readonly lost: number;
}

export const SCENARIO_LAYERS = {
  ours: 'ours', paper: 'paper', oracle: 'oracle', bound: 'bound', labels: 'labels', offScale: 'off_scale', noSsim: 'no_ssim', spread: 'spread',
} as const;
export const SERIES_LAYERS = {
  capacity: 'capacity', off: 'link_off', sent: 'sent', delivered: 'delivered', delayMedian: 'delay_median', delayMax: 'delay_max', ssim: 'ssim', skipped: 'skipped', lost: 'lost',
} as const;

/** One hue per scheme, the same in every scenario's picture (Salsify-1 and -2 far apart); others from OTHER_COLOURS in order. */
export const SCHEME_COLOURS: Readonly<Record<string, string>> = {
  'salsify-1': '#1f5fbf', 'salsify-2': '#d62728', 'salsify-4': '#17becf', 'conventional-1s': '#8c564b',
  'salsify-nograce': '#ff7f0e', 'salsify-targetsize': '#9467bd', 'webrtc-like': '#2ca02c', oracle: '#222222',
};
const OTHER_COLOURS = ['#e377c2', '#bcbd22', '#7f7f7f', '#393b79', '#637939', '#8c6d31'];

export function schemeColours(labels: readonly string[]): { domain: string[]; range: string[] } {
  const domain = [...new Set(labels)];
  let other = 0;
  return { domain, range: domain.map((l) => SCHEME_COLOURS[l] ?? OTHER_COLOURS[other++ % OTHER_COLOURS.length]!) };
}

/** The marks' meaning, in the shape legend. */
const SHAPES = [
  ['this toolkit (mean of seeds; bars: least to greatest)', 'circle'],
  ["the paper's published figure", 'diamond'],
  ['oracle: the bound (dashed rules)', 'triangle-up'],
  ['delay off the scale: at the edge, value printed', 'triangle-left'],
  ['no frame shown (SSIM unknown): at the bottom', 'triangle-down'],
] as const;
const SHAPE_OF = { ours: SHAPES[0][0], paper: SHAPES[1][0], oracle: SHAPES[2][0], offScale: SHAPES[3][0], noSsim: SHAPES[4][0] };

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/** The shape legend's entries this chart draws. */
function usedShapes(points: readonly PlacedPoint[]): (typeof SHAPES)[number][] {
  const drawn = (kind: ScenarioPoint['kind']) => points.some((p) => p.kind === kind && p.place === 'plotted');
  const used: Record<string, boolean> = {
    [SHAPE_OF.ours]: drawn('ours'), [SHAPE_OF.paper]: drawn('paper'), [SHAPE_OF.oracle]: drawn('oracle'),
    [SHAPE_OF.offScale]: points.some((p) => p.place === 'off-scale'), [SHAPE_OF.noSsim]: points.some((p) => p.place === 'no-ssim'),
  };
  return SHAPES.filter(([name]) => used[name]);
}

/** One text layer per label position (scenario-layout.ts chose each label's). */
function labelLayers(encoding: Record<string, unknown>): object[] {
  return LABEL_POSITIONS.map((pos, i) => ({
    name: i === 0 ? SCENARIO_LAYERS.labels : `${SCENARIO_LAYERS.labels}_${i}`,
    transform: [{ filter: `datum.text !== '' && datum.labelAt === ${i}` }],
    mark: { type: 'text', dx: pos.dx, dy: pos.dy, align: pos.align, baseline: pos.baseline, fontSize: PLOT.labelFontSize },
    encoding: { ...encoding, text: { field: 'text' } },
  }));
}

export function scenarioSpec(title: string, points: readonly ScenarioPoint[]): TopLevelSpec {
  const layout = layoutScenario(points);
  const values = layout.points.map((p) => ({
    ...p, name: p.kind === 'paper' ? `${p.label} (paper)` : p.label,
    p95Low: p.spread?.p95DelayMs[0] ?? null, p95High: p.spread ? Math.min(p.spread.p95DelayMs[1], layout.xDomain[1]) : null,
    ssimLow: p.spread?.ssimDb[0] ?? null, ssimHigh: p.spread?.ssimDb[1] ?? null,
  }));
  const shapesUsed = usedShapes(layout.points);
  const scale = { type: 'log', reverse: true, domain: [...layout.xDomain], nice: false };
  const x = { field: 'x', type: 'quantitative', title: '95th percentile signal delay (ms, log scale)', scale };
  const y = { field: 'y', type: 'quantitative', title: 'mean SSIM (dB)', scale: { domain: [...layout.yDomain], nice: false, zero: false } };
  const colours = schemeColours(values.map((v) => v.label));
  const colour = { field: 'label', type: 'nominal', title: 'scheme', scale: colours, legend: { orient: 'right', symbolType: 'square', labelLimit: 300 } };
  const symbolFill = `indexof(['${SHAPE_OF.paper.replace(/'/g, "\\'")}', '${SHAPE_OF.noSsim}'], datum.value) >= 0 ? 'transparent' : '#444'`;
  const shapeLegend = { title: 'marks', orient: 'right', labelLimit: 320, symbolStrokeWidth: 1.5 };
  const shape = (which: keyof typeof SHAPE_OF) => ({ datum: SHAPE_OF[which], type: 'nominal', scale: { domain: shapesUsed.map(([n]) => n), range: shapesUsed.map(([, s]) => s) }, legend: shapeLegend });
  const where = (test: string) => [{ filter: test }];
  const tooltip = [{ field: 'name', title: 'scheme' }, { field: 'p95DelayMs', title: 'p95 delay (ms)', format: '.1f' }, { field: 'ssimDb', title: 'SSIM (dB)', format: '.2f' }];
  const point = (name: string, test: string, which: keyof typeof SHAPE_OF, mark: object, colour_: object) => ({
    name, transform: where(test), mark: { type: 'point', size: 100, strokeWidth: 2, opacity: 1, ...mark }, encoding: { x, y, color: colour_, shape: shape(which), tooltip },
  });
  const labels = labelLayers({ x, y, color: colour });
  const spreadLayers = values.some((v) => v.spread) ? [
    { name: SCENARIO_LAYERS.spread, transform: where("datum.p95Low != null && datum.place === 'plotted'"), mark: { type: 'rule', strokeWidth: 1.5, opacity: 0.7 }, encoding: { x: { ...x, field: 'p95Low' }, x2: { field: 'p95High' }, y, color: colour } },
    { name: `${SCENARIO_LAYERS.spread}_ssim`, transform: where("datum.ssimLow != null && datum.place === 'plotted'"), mark: { type: 'rule', strokeWidth: 1.5, opacity: 0.7 }, encoding: { x, y: { ...y, field: 'ssimLow' }, y2: { field: 'ssimHigh' }, color: colour } },
  ] : [];
  const better = { name: 'better', data: { values: [{}] }, mark: { type: 'text', text: 'better \u2197', align: 'right', baseline: 'top', fontSize: 12, fontWeight: 'bold', color: '#555' }, encoding: { x: { value: PLOT.width - 6 }, y: { value: 6 } } };
  return {
    $schema: SCHEMA,
    background: 'white',
    padding: 10,
    autosize: { type: 'pad' },
    title: { text: title, anchor: 'start' },
    width: PLOT.width,
    height: PLOT.height,
    data: { values },
    layer: [
      { name: SCENARIO_LAYERS.bound, transform: where("datum.kind === 'oracle' && datum.place === 'plotted'"), mark: { type: 'rule', strokeDash: [4, 4], color: '#888' }, encoding: { x } },
      { name: `${SCENARIO_LAYERS.bound}_ssim`, transform: where("datum.kind === 'oracle' && datum.place === 'plotted'"), mark: { type: 'rule', strokeDash: [4, 4], color: '#888' }, encoding: { y } },
      ...spreadLayers,
      point(SCENARIO_LAYERS.ours, "datum.kind === 'ours' && datum.place === 'plotted'", 'ours', { filled: true }, colour),
      point(SCENARIO_LAYERS.paper, "datum.kind === 'paper' && datum.place === 'plotted'", 'paper', { filled: false, size: 120 }, colour),
      point(SCENARIO_LAYERS.oracle, "datum.kind === 'oracle' && datum.place === 'plotted'", 'oracle', { filled: true, size: 130, color: '#222' }, { value: '#222' }),
      point(SCENARIO_LAYERS.offScale, "datum.place === 'off-scale'", 'offScale', { filled: true, size: 130 }, colour),
      point(SCENARIO_LAYERS.noSsim, "datum.place === 'no-ssim'", 'noSsim', { filled: false, size: 130 }, colour),
      ...labels,
      better,
    ],
    config: { view: { stroke: '#ccc' }, legend: { labelFontSize: 11 } },
    // Hollow where the marks are (render.ts applies it to the legend's symbols).
    usermeta: { legendSymbols: { marks: { fill: { signal: symbolFill }, stroke: { value: '#444' } } } },
  } as unknown as TopLevelSpec;
}

export interface SeriesExtras {
  /** The measured window (s), shaded. */
  readonly window?: { readonly fromS: number; readonly toS: number };
  /** When the downlink was off (an on-off link; s), shaded on the capacity panel. */
  readonly offPeriods?: readonly { readonly fromS: number; readonly toS: number }[];
}

export function seriesSpec(title: string, bins: readonly SeriesPoint[], extras: SeriesExtras = {}): TopLevelSpec {
  const { window, offPeriods = [] } = extras;
  const values = bins.map((b) => ({ ...b, middle: b.t + 0.25 }));
  const end = bins.length ? bins[bins.length - 1]!.t + 0.5 : 1;
  const x = { field: 't', type: 'quantitative', title: 'time (s)', scale: { domain: [0, end], nice: false } };
  const width = 640;
  const legend = (domain: string[], range: string[], extra: object = {}) => ({ scale: { domain, range }, legend: { orient: 'top', title: null, labelLimit: 400, ...extra } });
  const hasSent = bins.some((b) => b.sentMbps !== undefined);
  const tpNames = ['capacity', ...(offPeriods.length ? ['link off'] : []), ...(hasSent ? ['video sent'] : []), 'video delivered'];
  const tpColours = ['#9ecae1', ...(offPeriods.length ? ['#fdae6b'] : []), ...(hasSent ? ['#e6550d'] : []), '#0020a0'];
  const tp = legend(tpNames, tpColours);
  const dl = legend(['median signal delay', 'largest signal delay'], ['#4c78a8', '#e45756']);
  // The legend's symbols as the marks are: a filled circle for skipped, a cross for lost.
  // The legend's symbols as the marks are (render.ts applies usermeta.legendSymbols): a dot for skipped, a cross for lost.
  const ev = legend(['skipped', 'lost'], ['#f58518', '#d62728'], { title: EVENTS_LEGEND, titleFontWeight: 'normal' });
  const band = (name: string, rows: object[], color: string, opacity: number) => ({
    name, data: { values: rows }, mark: { type: 'rect', color, opacity }, encoding: { x: { field: 'from', type: 'quantitative', scale: x.scale }, x2: { field: 'to' } },
  });
  const windowLayer = window ? [band('window', [{ from: window.fromS, to: window.toS }], '#000', 0.04)] : [];
  const offLayer = offPeriods.length ? [{
    ...band(SERIES_LAYERS.off, offPeriods.map((o) => ({ from: o.fromS, to: o.toS })), '#fdae6b', 0.55),
    encoding: { x: { field: 'from', type: 'quantitative', scale: x.scale }, x2: { field: 'to' }, color: { datum: 'link off', type: 'nominal', ...tp } },
  }] : [];
  const panel = (layers: unknown[], height = 140) => ({ width, height, layer: [...windowLayer, ...layers] });
  // A bin without a frame (null) breaks its line: an outage is a gap, not a straight line across it.
  const gaps = 'break-paths-show-domains';
  const sentLayer = hasSent ? [{ name: SERIES_LAYERS.sent, mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.2, strokeDash: [4, 2] }, encoding: { x, y: { field: 'sentMbps', type: 'quantitative' }, color: { datum: 'video sent', type: 'nominal', ...tp } } }] : [];
  const subtitle = [
    window ? `shaded: the measured window [${window.fromS}, ${window.toS}) s; bins of 500 ms` : 'bins of 500 ms',
    ...(offPeriods.length ? [`orange bands: the ${offPeriods.length} periods the on-off link was off`] : []),
  ];
  return {
    $schema: SCHEMA,
    background: 'white',
    padding: 10,
    title: { text: title, anchor: 'start', subtitle },
    data: { values },
    vconcat: [
      panel([
        { name: SERIES_LAYERS.capacity, mark: { type: 'area', interpolate: 'step-after', opacity: 0.6 }, encoding: { x, y: { field: 'capacityMbps', type: 'quantitative', title: 'Mbit/s' }, color: { datum: 'capacity', type: 'nominal', ...tp } } },
        ...offLayer,
        ...sentLayer,
        { name: SERIES_LAYERS.delivered, mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.2 }, encoding: { x, y: { field: 'deliveredMbps', type: 'quantitative' }, color: { datum: 'video delivered', type: 'nominal', ...tp } } },
      ]),
      panel([
        { name: SERIES_LAYERS.delayMax, mark: { type: 'line', strokeWidth: 1, invalid: gaps }, encoding: { x, y: { field: 'delayMaxMs', type: 'quantitative', title: 'signal delay (ms, log)', scale: { type: 'log' } }, color: { datum: 'largest signal delay', type: 'nominal', ...dl } } },
        { name: SERIES_LAYERS.delayMedian, mark: { type: 'line', strokeWidth: 1.5, invalid: gaps }, encoding: { x, y: { field: 'delayMedianMs', type: 'quantitative', scale: { type: 'log' } }, color: { datum: 'median signal delay', type: 'nominal', ...dl } } },
      ]),
      panel([
        { name: SERIES_LAYERS.ssim, mark: { type: 'line', strokeWidth: 1, color: '#54a24b', point: false, invalid: gaps }, encoding: { x, y: { field: 'ssimDb', type: 'quantitative', title: 'SSIM of shown frames (dB)', scale: { zero: false } } } },
      ], 110),
      panel([
        { name: SERIES_LAYERS.skipped, transform: [{ filter: 'datum.skipped > 0' }], mark: { type: 'point', shape: 'circle', size: 14, filled: true }, encoding: { x: { ...x, field: 'middle' }, y: { field: 'skipped', type: 'quantitative', title: 'frames per 500 ms' }, color: { datum: 'skipped', type: 'nominal', ...ev } } },
        { name: SERIES_LAYERS.lost, transform: [{ filter: 'datum.lost > 0' }], mark: { type: 'point', shape: 'cross', size: 30, filled: true }, encoding: { x: { ...x, field: 'middle' }, y: { field: 'lost', type: 'quantitative' }, color: { datum: 'lost', type: 'nominal', ...ev } } },
      ], 80),
    ],
    resolve: { scale: { color: 'independent' } },
    config: { view: { stroke: '#ccc' } },
    usermeta: { legendSymbols: { [EVENTS_LEGEND]: { shape: { signal: "datum.value === 'lost' ? 'cross' : 'circle'" }, size: { signal: "datum.value === 'lost' ? 60 : 30" } } } },
  } as unknown as TopLevelSpec;
}

const EVENTS_LEGEND = 'frames:';
