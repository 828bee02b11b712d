// Renders Vega-Lite specifications: to SVG with vega's headless View (no
// browser, no canvas), and to one self-contained HTML page that holds each
// chart's SVG and its specification (for vega-embed, or any other viewer).

import * as vega from 'vega';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { textWidth } from './text-width.ts';

export type { TopLevelSpec } from 'vega-lite';

interface TextItem {
  readonly fontSize?: number;
  readonly fontWeight?: string | number;
  readonly limit?: number;
}

// vega measures text through this one function (it has no canvas here): a
// label's width from its characters' widths (text-width.ts), not 0.8 em each.
// (vega exports textMetrics; its type declarations do not list it.)
(vega as unknown as { textMetrics: { width: (item: TextItem, text: unknown) => number } }).textMetrics.width = (item, text) => {
  const size = item.fontSize != null ? Number(item.fontSize) || 0 : 11;
  const bold = item.fontWeight === 'bold' || Number(item.fontWeight) >= 600;
  return textWidth(text == null ? '' : String(text).trim(), size, bold);
};

/** A chart's SVG document, rendered without a browser. Deterministic: the same specification gives the same bytes. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(withLegendSymbols(compile(spec).spec, spec)), { renderer: 'none' });
  try {
    return renumberClipIds(await view.toSVG());
  } finally {
    view.finalize();
  }
}

/**
 * A specification's `usermeta.legendSymbols`: per legend title, the encoding
 * of its symbols (e.g. a fill or shape that differs by entry: `datum.value`
 * is the entry). Vega-Lite gives every symbol of a legend one fill and one
 * shape; applied to the compiled Vega specification, this shows a hollow
 * diamond beside a filled circle, or a cross beside a dot, as the marks are.
 */
export type LegendSymbols = Record<string, Record<string, unknown>>;

function withLegendSymbols(vg: ReturnType<typeof compile>['spec'], spec: TopLevelSpec): ReturnType<typeof compile>['spec'] {
  const symbols = (spec.usermeta as { legendSymbols?: LegendSymbols } | undefined)?.legendSymbols;
  if (!symbols) return vg;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const legends = (node as { legends?: { title?: unknown; encode?: { symbols?: { update?: object } } }[] }).legends;
    for (const legend of legends ?? []) {
      const patch = typeof legend.title === 'string' ? symbols[legend.title] : undefined;
      if (!patch) continue;
      legend.encode = { ...legend.encode, symbols: { ...legend.encode?.symbols, update: { ...legend.encode?.symbols?.update, ...patch } } };
    }
    for (const value of Object.values(node)) if (value !== legends) visit(value);
  };
  visit(vg);
  return vg;
}

/**
 * vega numbers the clip paths of every SVG it renders from one counter for
 * the whole process, so the same chart would differ with what was drawn
 * before it; numbered from 1 in each document instead, it does not.
 */
function renumberClipIds(svg: string): string {
  const ids = new Map<string, number>();
  return svg.replace(/(id="|url\(#)clip(\d+)/g, (_, lead: string, n: string) => {
    if (!ids.has(n)) ids.set(n, ids.size + 1);
    return `${lead}clip${ids.get(n)}`;
  });
}

export interface HtmlChart {
  title: string;
  spec: TopLevelSpec;
  /** Its SVG, when already rendered (renderSvg's output); rendered here otherwise. */
  svg?: string;
  /** HTML under its heading, above the chart. */
  caption?: string;
}

/** One chart as an HTML section: its SVG inline and its Vega-Lite specification beside it, as JSON in a <script type="application/vnd.vegalite+json"> element. */
export async function chartSection({ title: chartTitle, spec, svg: rendered, caption = '' }: HtmlChart, id: string): Promise<string> {
  const svg = (rendered ?? (await renderSvg(spec))).replace(/^<\?xml[^>]*>\s*/, '');
  // "</" inside a script element would end it early.
  const json = JSON.stringify(spec).replace(/</g, '\\u003c');
  return `<section class="chart" id="${escapeHtml(id)}">\n<h2>${escapeHtml(chartTitle)}</h2>\n${caption}${svg}\n<script type="application/vnd.vegalite+json">${json}</script>\n</section>`;
}

/** One self-contained HTML page (no script, no network) around `body`. */
export function renderPage(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>body { font-family: sans-serif; margin: 1em 2em; } section.chart { margin-bottom: 2em; } pre { background: #f4f4f4; padding: 0.5em; }
table.results, table.provenance { border-collapse: collapse; font-size: 90%; } table.results td, table.results th, table.provenance td, table.provenance th { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
table.results td:first-child, table.provenance td, table.provenance th { text-align: left; } table.results td:first-child { white-space: nowrap; } table.results td:last-child { text-align: left; min-width: 16em; } tr.paper td { color: #555; font-style: italic; }
tr.invalid td { background: #fde0dd; } tr.degenerate td { background: #fff3cd; } p.marks, ul.marks { font-size: 90%; }</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`;
}

/** One HTML page with every chart drawn (chartSection each), after `preamble`. */
export async function renderHtml(title: string, charts: readonly HtmlChart[], preamble = ''): Promise<string> {
  const sections = await Promise.all(charts.map((c, i) => chartSection(c, `chart-${i}`)));
  return renderPage(title, `${preamble}\n${sections.join('\n')}`);
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
