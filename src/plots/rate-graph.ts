// Bitrate over time of one experiment's runs: one line per (series, run), the
// series told apart by colour (e.g. outgoing and incoming video), the runs by
// dash. A Vega-Lite specification for render.ts.
import type { TopLevelSpec } from 'vega-lite';

export interface RateLine {
  /** What the line is: "outgoing", "incoming". */
  readonly series: string;
  /** Which run: "run 1". */
  readonly run: string;
  readonly points: readonly { readonly t: number; readonly mbps: number }[];
}

export function rateGraphSpec(title: string, lines: readonly RateLine[], options: { width?: number; height?: number; yTitle?: string } = {}): TopLevelSpec {
  const values = lines.flatMap((line) => line.points.filter((p) => Number.isFinite(p.t) && Number.isFinite(p.mbps)).map((p) => ({ t: p.t, mbps: p.mbps, series: line.series, run: line.run })));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: options.width ?? 560,
    height: options.height ?? 240,
    background: 'white',
    data: { values },
    mark: { type: 'line', strokeWidth: 1.5, interpolate: 'linear' },
    encoding: {
      x: { field: 't', type: 'quantitative', title: 'time since connected (s)' },
      y: { field: 'mbps', type: 'quantitative', title: options.yTitle ?? 'video bitrate (Mbit/s)' },
      color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'top' } },
      strokeDash: { field: 'run', type: 'nominal', title: null, legend: { orient: 'top' } },
      detail: [{ field: 'series' }, { field: 'run' }],
    },
  } as TopLevelSpec;
}
