// Renders Vega-Lite specifications: to SVG with vega's headless View (no
// browser, no canvas), and to one self-contained HTML page that holds each
// chart's SVG and its specification (for vega-embed, or any other viewer).

import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export type { TopLevelSpec } from 'vega-lite';

/** A chart's SVG document, rendered without a browser. Deterministic: the same specification gives the same bytes. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return renumberClipIds(await view.toSVG());
  } finally {
    view.finalize();
  }
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
}

/**
 * One HTML page with every chart drawn (its SVG inline, so the page needs no
 * script and no network) and its Vega-Lite specification beside it, as JSON
 * in a <script type="application/vnd.vegalite+json"> element.
 */
export async function renderHtml(title: string, charts: readonly HtmlChart[], preamble = ''): Promise<string> {
  const sections = await Promise.all(
    charts.map(async ({ title: chartTitle, spec, svg: rendered }, i) => {
      const svg = (rendered ?? (await renderSvg(spec))).replace(/^<\?xml[^>]*>\s*/, '');
      // "</" inside a script element would end it early.
      const json = JSON.stringify(spec).replace(/</g, '\\u003c');
      return `<section class="chart" id="chart-${i}">\n<h2>${escapeHtml(chartTitle)}</h2>\n${svg}\n<script type="application/vnd.vegalite+json">${json}</script>\n</section>`;
    }),
  );
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>body { font-family: sans-serif; margin: 1em 2em; } section.chart { margin-bottom: 2em; } pre { background: #f4f4f4; padding: 0.5em; }</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${preamble}
${sections.join('\n')}
</body>
</html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
