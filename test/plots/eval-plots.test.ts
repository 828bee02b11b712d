// The eval's pictures, rendered to SVG: the scatter sized to its content,
// every scheme on it (off-scale delays at the edge with their value, schemes
// without a shown frame at the bottom with the reason), labels that do not
// overlap, a hue per scheme, the marks' shapes in the legend; the time series
// with the send rate, an on-off link's off periods, gaps where no frame was
// shown, and a cross for lost frames in the legend as on the chart.
import { XMLValidator } from 'fast-xml-parser';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEME_COLOURS, scenarioSpec, seriesSpec, type SeriesPoint } from '../../src/plots/eval-plots.ts';
import { renderSvg } from '../../src/plots/render.ts';
import { labelsOverlap, layoutScenario, PLOT, type ScenarioPoint } from '../../src/plots/scenario-layout.ts';

/** The children (paths, texts) of the SVG group of layer `name`. */
function layer(svg: string, name: string): string[] {
  const m = new RegExp(`<g class="mark-[a-z]+ role-mark ${name}_marks"[^>]*?(/>|>(.*?)</g>)`, 's').exec(svg);
  if (!m) return [];
  return (m[2] ?? '').match(/<(path|text|line)[^>]*>/g) ?? [];
}
/** The symbols' paths of the legend titled `title`. */
function legendSymbols(svg: string, title: string): string[] {
  const start = svg.indexOf(`titled '${title}'`);
  if (start < 0) return [];
  const end = svg.indexOf('role-legend"', start + 1);
  const part = svg.slice(start, end < 0 ? undefined : end);
  return [...part.matchAll(/<g class="mark-symbol role-legend-symbol"[^>]*>\s*(<path[^>]*>)/g)].map((m) => m[1]!);
}
const svgWidth = (svg: string) => Number(/<svg[^>]* width="(\d+)"/.exec(svg)![1]);

const verizon: ScenarioPoint[] = [
  { label: 'salsify-1', kind: 'ours', p95DelayMs: 712, ssimDb: 13.0, runs: 3, spread: { p95DelayMs: [690, 760], ssimDb: [12.8, 13.2] } },
  { label: 'salsify-2', kind: 'ours', p95DelayMs: 705, ssimDb: 13.2, runs: 3, spread: { p95DelayMs: [680, 720], ssimDb: [13.1, 13.3] } },
  { label: 'conventional-1s', kind: 'ours', p95DelayMs: 44834, ssimDb: 12.5, runs: 3 },
  { label: 'salsify-targetsize', kind: 'ours', p95DelayMs: 13501, ssimDb: NaN, runs: 3 },
  { label: 'oracle', kind: 'oracle', p95DelayMs: 420, ssimDb: 13.4, runs: 3 },
  { label: 'salsify-1', kind: 'paper', p95DelayMs: 640, ssimDb: 15.5 },
  { label: 'salsify-2', kind: 'paper', p95DelayMs: 1100, ssimDb: 15.6 },
  { label: 'conventional-1s', kind: 'paper', p95DelayMs: 4303, ssimDb: 12.2 },
];

test('the scatter: SVG that parses, as wide as its content (not a half-empty canvas)', async () => {
  const svg = await renderSvg(scenarioSpec('verizon-lte: Verizon-LTE-short', verizon));
  assert.is(XMLValidator.validate(svg), true);
  // The plot, its axis title and the legend to its right: about 300 px of legend, not 700.
  assert.ok(svgWidth(svg) < PLOT.width + 420, `${svgWidth(svg)} px wide`);
  assert.match(svg, /better ↗/);
});

test('a degenerate scheme is drawn at the edge with its value, a scheme with no shown frame at the bottom with the reason; none is dropped', async () => {
  const svg = await renderSvg(scenarioSpec('v', verizon));
  assert.is(layer(svg, 'off_scale').length, 1);
  assert.match(svg, /conventional-1s: p95 44,834 ms/);
  assert.is(layer(svg, 'no_ssim').length, 1);
  assert.match(svg, /salsify-targetsize: no frame shown, p95 13,501 ms/);
  assert.is(layer(svg, 'ours').length, 2, 'salsify-1 and -2 at their places');
  assert.is(layer(svg, 'paper').length, 3, "the paper's conventional-1s is on the scale");
  assert.is(layer(svg, 'oracle').length, 1);
  // The others are not squashed: the axis ends well below the off-scale delay.
  const layout = layoutScenario(verizon);
  assert.ok(layout.xDomain[1] < 10_000, `axis to ${layout.xDomain[1]} ms`);
  // The seeds' spread: a bar each way for each scheme with several seeds.
  assert.is(layer(svg, 'spread').length, 2);
  assert.is(layer(svg, 'spread_ssim').length, 2);
});

test('labels of neighbouring points do not overlap; Salsify-1 and -2 have hues far apart', () => {
  const close: ScenarioPoint[] = [
    { label: 'salsify-1', kind: 'ours', p95DelayMs: 301, ssimDb: 10.81 },
    { label: 'salsify-2', kind: 'ours', p95DelayMs: 291, ssimDb: 10.71 },
    { label: 'salsify-targetsize', kind: 'ours', p95DelayMs: 270, ssimDb: 10.51 },
    { label: 'oracle', kind: 'oracle', p95DelayMs: 100, ssimDb: 10.56 },
    { label: 'salsify-nograce', kind: 'ours', p95DelayMs: 149, ssimDb: 8.79 },
  ];
  assert.not.ok(labelsOverlap(layoutScenario(close)));
  const hue = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
    const max = Math.max(r, g, b);
    const d = max - Math.min(r, g, b);
    const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
    return (h * 60 + 360) % 360;
  };
  const apart = Math.abs(hue(SCHEME_COLOURS['salsify-1']!) - hue(SCHEME_COLOURS['salsify-2']!));
  assert.ok(Math.min(apart, 360 - apart) > 90, `${apart} degrees`);
});

test("the legend shows the marks' shapes: ours, the paper's (hollow), the oracle's", async () => {
  const svg = await renderSvg(scenarioSpec('v', verizon));
  for (const entry of ["this toolkit (mean of seeds; bars: least to greatest)", "the paper&#39;s published figure", 'oracle: the bound (dashed rules)', 'delay off the scale: at the edge, value printed', 'no frame shown (SSIM unknown): at the bottom']) {
    assert.ok(svg.includes(entry) || svg.includes(entry.replace('&#39;', "'")), entry);
  }
  const symbols = legendSymbols(svg, 'marks');
  assert.is(symbols.length, 5);
  // Hollow: no fill of its own (vega writes none for transparent; the SVG's root group has fill="none").
  assert.is(symbols.filter((p) => !/ fill="/.test(p)).length, 2, "hollow: the paper's diamond, the no-frame triangle");
  assert.is(symbols.filter((p) => /fill="#444"/.test(p)).length, 3, 'filled: ours, the oracle, off the scale');
  assert.is(new Set(symbols.map((p) => /d="([^"]*)"/.exec(p)![1])).size, 5, 'five shapes');
});

const bins = (n: number, f: (i: number) => Partial<SeriesPoint>): SeriesPoint[] =>
  Array.from({ length: n }, (_, i) => ({ t: i / 2, capacityMbps: 12, sentMbps: 20, deliveredMbps: 11, delayMedianMs: 100, delayMaxMs: 150, ssimDb: 15, skipped: 0, lost: 0, ...f(i) }));

test('the time series: the send rate beside the delivery, off periods shaded, an outage a gap, lost frames a cross in the legend', async () => {
  // Bins 8 to 11 show no frame (an outage); some frames lost and skipped.
  const series = bins(24, (i) => (i >= 8 && i < 12 ? { ssimDb: null, delayMedianMs: null, delayMaxMs: null, lost: 2 } : i === 3 ? { skipped: 1 } : {}));
  const svg = await renderSvg(seriesSpec('run', series, { window: { fromS: 2, toS: 10 }, offPeriods: [{ fromS: 4, toS: 4.2 }, { fromS: 7, toS: 7.5 }] }));
  assert.is(XMLValidator.validate(svg), true);
  assert.is(layer(svg, 'sent').length, 1, 'the send rate');
  assert.is(layer(svg, 'delivered').length, 1);
  assert.is(layer(svg, 'link_off').length, 2, 'two off periods');
  // The SSIM line: two pieces, before and after the outage (a path that moves twice).
  const ssim = layer(svg, 'ssim');
  assert.is(ssim.length, 1);
  assert.is((/ d="([^"]*)"/.exec(ssim[0]!)![1]!.match(/M/g) ?? []).length, 2, 'a gap, not a line across the outage');
  assert.is((/ d="([^"]*)"/.exec(layer(svg, 'delay_median')[0]!)![1]!.match(/M/g) ?? []).length, 2);
  // The legend of skipped and lost: a circle and a cross, as the marks.
  const lostMark = /d="([^"]*)"/.exec(layer(svg, 'lost')[0]!)![1]!;
  const shapes = legendSymbols(svg, 'frames:').map((p) => /d="([^"]*)"/.exec(p)![1]!);
  assert.is(shapes.length, 2);
  assert.is.not(shapes[0], shapes[1], 'different symbols');
  // The cross's outline has 12 corners; a circle's path is arcs.
  assert.ok(shapes.some((d) => (d.match(/[LH V]/g) ?? []).length >= 11 && !/A/.test(d)), `a cross among ${shapes.join(' | ')}`);
  assert.ok(lostMark.length > 0);
});

test('results stored before the send rate was recorded: no send-rate line, the rest drawn', async () => {
  const old = bins(6, () => ({})).map(({ sentMbps: _s, ...b }) => b);
  const svg = await renderSvg(seriesSpec('old', old));
  assert.is(layer(svg, 'sent').length, 0);
  assert.is(layer(svg, 'delivered').length, 1);
});

test.run();
