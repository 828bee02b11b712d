// The width of a label as the SVG's reader will draw it, for vega's layout
// (legends, titles, label placement, the SVG's own size). Without a canvas
// vega guesses 0.8 em per character, about half again too wide for
// sans-serif, which left every chart's drawing in the left half of its
// canvas. Here: Helvetica's advance widths (its AFM metrics, per mille of an
// em, printable ASCII), widened to the DejaVu Sans that Linux browsers draw
// sans-serif with, and a bold allowance. Pure and deterministic.

// Printable ASCII from ' ' (32) to '~' (126).
const HELVETICA = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556,
  278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667,
  611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833,
  556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];
/** DejaVu Sans is wider than Helvetica; a little more room than too little. */
const WIDER = 1.12;
const BOLD = 1.1;
const OTHER = 640;

export function textWidth(text: string, fontSize: number, bold = false): number {
  let units = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    units += code >= 32 && code <= 126 ? HELVETICA[code - 32]! : OTHER;
  }
  return (units / 1000) * fontSize * WIDER * (bold ? BOLD : 1);
}
