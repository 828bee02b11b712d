// Where a scenario's points go on its delay/SSIM picture (pure): the axes'
// domains, which points are off the scale (a delay far beyond the rest, drawn
// at the axis's edge with its value) or have no SSIM (no frame shown: drawn
// at the bottom edge with the reason), and where each label goes so that no
// two labels and no label and point overlap (greedy, over eight positions
// around the point, in the plot's pixels).
import { textWidth } from './text-width.ts';

export interface ScenarioPoint {
  readonly label: string;
  readonly kind: 'ours' | 'paper' | 'oracle';
  readonly p95DelayMs: number;
  /** NaN when no frame was shown (SSIM unknown). */
  readonly ssimDb: number;
  /** Across seeds (ours): the least and greatest of each figure; absent for one seed or a published row. */
  readonly spread?: { readonly p95DelayMs: readonly [number, number]; readonly ssimDb: readonly [number, number] };
  /** Runs averaged into the point. */
  readonly runs?: number;
}

/** A point as drawn: its place (x: delay ms, y: SSIM dB, inside the domains) and why it is where it is. */
export interface PlacedPoint extends ScenarioPoint {
  readonly x: number;
  readonly y: number;
  /** 'plotted' (its own place), 'off-scale' (its delay beyond the axis: at the edge), 'no-ssim' (no frame shown: at the bottom edge). */
  readonly place: 'plotted' | 'off-scale' | 'no-ssim';
  /** The label drawn beside it ('' for none). */
  readonly text: string;
  /** Index into LABEL_POSITIONS. */
  readonly labelAt: number;
}

export interface ScenarioLayout {
  readonly points: readonly PlacedPoint[];
  /** Delay axis (ms, log): [least, greatest]; drawn reversed (better to the right). */
  readonly xDomain: readonly [number, number];
  readonly yDomain: readonly [number, number];
}

export const PLOT = { width: 560, height: 340, labelFontSize: 10 } as const;

/** Label offsets from the point (px), with the text's alignment. */
export const LABEL_POSITIONS = [
  { dx: 8, dy: -6, align: 'left', baseline: 'bottom' },
  { dx: 8, dy: 6, align: 'left', baseline: 'top' },
  { dx: -8, dy: -6, align: 'right', baseline: 'bottom' },
  { dx: -8, dy: 6, align: 'right', baseline: 'top' },
  { dx: 0, dy: -9, align: 'center', baseline: 'bottom' },
  { dx: 0, dy: 9, align: 'center', baseline: 'top' },
  { dx: 10, dy: 0, align: 'left', baseline: 'middle' },
  { dx: -10, dy: 0, align: 'right', baseline: 'middle' },
] as const;

/** A delay more than this many times the scenario's median p95 is drawn off-scale, at the edge, with its value. */
export const OFF_SCALE_FACTOR = 10;

const finite = (x: number) => Number.isFinite(x);

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export function formatMs(ms: number): string {
  return `${Math.round(ms).toLocaleString('en-US')} ms`;
}

/** The delay that counts as off the scale for these points: OFF_SCALE_FACTOR x their median p95. */
export function offScaleLimit(points: readonly ScenarioPoint[]): number {
  const delays = points.map((p) => p.p95DelayMs).filter((d) => finite(d) && d > 0);
  return delays.length ? OFF_SCALE_FACTOR * median(delays) : Infinity;
}

export function layoutScenario(points: readonly ScenarioPoint[]): ScenarioLayout {
  const known = points.filter((p) => finite(p.p95DelayMs) && p.p95DelayMs > 0);
  const limit = offScaleLimit(known);
  const onScale = known.filter((p) => p.p95DelayMs <= limit);
  const spreadX = onScale.flatMap((p) => (p.spread ? [...p.spread.p95DelayMs] : [p.p95DelayMs])).filter((d) => d <= limit);
  const low = spreadX.length ? Math.min(...spreadX) / 1.4 : 10;
  const high = spreadX.length ? Math.max(...spreadX) * 1.6 : 1000;
  const ys = known.filter((p) => finite(p.ssimDb)).flatMap((p) => (p.spread ? [...p.spread.ssimDb, p.ssimDb] : [p.ssimDb]));
  const yLow = ys.length ? Math.min(...ys) : 0;
  const yHigh = ys.length ? Math.max(...ys) : 1;
  const pad = Math.max(0.3, (yHigh - yLow) * 0.12);
  const yDomain: [number, number] = [Math.floor((yLow - pad) * 10) / 10, Math.ceil((yHigh + pad) * 10) / 10];
  const xDomain: [number, number] = [low, high];
  const drawn = known.map((p) => {
    const offScale = p.p95DelayMs > high;
    const noSsim = !finite(p.ssimDb);
    const place: PlacedPoint['place'] = noSsim ? 'no-ssim' : offScale ? 'off-scale' : 'plotted';
    const name = p.kind === 'paper' ? `${p.label} (paper)` : p.label;
    const text = noSsim ? `${name}: no frame shown, p95 ${formatMs(p.p95DelayMs)}` : offScale ? `${name}: p95 ${formatMs(p.p95DelayMs)}` : p.kind === 'paper' ? '' : name;
    return { ...p, x: Math.min(p.p95DelayMs, high), y: noSsim ? yDomain[0] : p.ssimDb, place, text, labelAt: 0 };
  });
  return { points: placeLabels(oneLabelPerPlace(drawn), xDomain, yDomain), xDomain, yDomain };
}

/** Points drawn at the same edge place (several schemes off the scale at one delay) share one label naming them all. */
function oneLabelPerPlace(points: PlacedPoint[]): PlacedPoint[] {
  const groups = new Map<string, number[]>();
  points.forEach((p, i) => {
    if (p.place === 'plotted') return;
    const key = `${p.place} ${p.x.toPrecision(6)} ${p.y.toPrecision(6)}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  const out = [...points];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const first = points[members[0]!]!;
    const names = members.map((i) => (points[i]!.kind === 'paper' ? `${points[i]!.label} (paper)` : points[i]!.label));
    const sameDelay = members.every((i) => points[i]!.p95DelayMs === first.p95DelayMs);
    const suffix = first.text.slice(first.text.indexOf(': ') + 2);
    out[members[0]!] = { ...first, text: sameDelay ? `${names.join(', ')}: ${suffix}` : members.map((i) => points[i]!.text).join('; ') };
    for (const i of members.slice(1)) out[i] = { ...points[i]!, text: '' };
  }
  return out;
}

interface Box { x0: number; y0: number; x1: number; y1: number }
const overlap = (a: Box, b: Box) => Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));

/** A point's position in the plot's pixels (the delay axis reversed: larger delays to the left). */
export function pixelOf(p: { x: number; y: number }, xDomain: readonly [number, number], yDomain: readonly [number, number]): { px: number; py: number } {
  const [l, h] = xDomain.map(Math.log10) as [number, number];
  return {
    px: PLOT.width * (1 - (Math.log10(p.x) - l) / (h - l)),
    py: PLOT.height * (1 - (p.y - yDomain[0]) / (yDomain[1] - yDomain[0])),
  };
}

export function labelBox(text: string, px: number, py: number, at: number): Box {
  const pos = LABEL_POSITIONS[at]!;
  const w = textWidth(text, PLOT.labelFontSize);
  const h = PLOT.labelFontSize + 2;
  const x = px + pos.dx;
  const y = py + pos.dy;
  const x0 = pos.align === 'left' ? x : pos.align === 'right' ? x - w : x - w / 2;
  const y0 = pos.baseline === 'bottom' ? y - h : pos.baseline === 'top' ? y : y - h / 2;
  return { x0, y0, x1: x0 + w, y1: y0 + h };
}

/** Each label at the first of LABEL_POSITIONS that overlaps nothing drawn and stays inside the plot; else where it overlaps least. */
export function placeLabels(points: readonly PlacedPoint[], xDomain: readonly [number, number], yDomain: readonly [number, number]): PlacedPoint[] {
  const pixels = points.map((p) => pixelOf(p, xDomain, yDomain));
  const taken: Box[] = pixels.map(({ px, py }) => ({ x0: px - 6, y0: py - 6, x1: px + 6, y1: py + 6 }));
  const outside = (b: Box) => Math.max(0, -b.x0) + Math.max(0, b.x1 - PLOT.width) + Math.max(0, -b.y0) + Math.max(0, b.y1 - PLOT.height);
  // Place the crowded ones first: those with the most neighbours within 60 px.
  const crowd = pixels.map((a) => pixels.filter((b) => Math.hypot(a.px - b.px, a.py - b.py) < 60).length);
  const order = points.map((_, i) => i).sort((a, b) => crowd[b]! - crowd[a]! || a - b);
  const placed = [...points];
  for (const i of order) {
    const p = points[i]!;
    if (p.text === '') continue;
    let best = 0;
    let bestCost = Infinity;
    for (let at = 0; at < LABEL_POSITIONS.length; at++) {
      const box = labelBox(p.text, pixels[i]!.px, pixels[i]!.py, at);
      const cost = taken.reduce((s, t) => s + overlap(box, t), 0) + 1000 * outside(box);
      if (cost < bestCost) {
        best = at;
        bestCost = cost;
        if (cost === 0) break;
      }
    }
    taken.push(labelBox(p.text, pixels[i]!.px, pixels[i]!.py, best));
    placed[i] = { ...p, labelAt: best };
  }
  return placed;
}

/** Whether any two labels of a layout overlap (for tests and checks). */
export function labelsOverlap(layout: ScenarioLayout): boolean {
  const boxes = layout.points.filter((p) => p.text !== '').map((p) => {
    const { px, py } = pixelOf(p, layout.xDomain, layout.yDomain);
    return labelBox(p.text, px, py, p.labelAt);
  });
  return boxes.some((a, i) => boxes.some((b, j) => j > i && overlap(a, b) > 0));
}
