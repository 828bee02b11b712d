// The runnable blocks of the README and the docs pages. A block fenced as ```sh is a shell
// script a reader runs verbatim from the repository's root; one fenced as ```ts is a program
// (run with tsx, importing the package by its name). A comment on the line before a block says
// what it needs or why the suite does not run it:
//   <!-- docs-test: needs root, iperf3 -->     skipped, and counted, where one is missing
//   <!-- docs-test: long (40 min) -->          never run by the suite (its files are still checked)
// Plain ``` fences (synopses, output, file formats) are not run.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DocBlock {
  /** "docs/linkshell.md:88", the line of the opening fence. */
  readonly where: string;
  readonly language: 'sh' | 'ts';
  readonly code: string;
  /** What the block needs beyond Node and the checkout: "root", or a program's name. */
  readonly needs: readonly string[];
  /** Why the suite never runs it, when it is too long to. */
  readonly long?: string;
}

const MARK = /^<!--\s*docs-test:\s*(needs|long)\b\s*(.*?)\s*-->\s*$/;

/** The README and every page of docs/, as paths relative to root. */
export function docFiles(root: string): string[] {
  const pages = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...pages.map((name) => `docs/${name}`)];
}

export function runnableBlocks(file: string, text: string): DocBlock[] {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(sh|ts)\s*$/.exec(lines[i]);
    if (open === null) {
      if (lines[i].startsWith('```')) i = closingFence(lines, i, file);
      continue;
    }
    const end = closingFence(lines, i, file);
    const mark = i > 0 ? MARK.exec(lines[i - 1]) : null;
    const needs = mark?.[1] === 'needs' ? mark[2].split(',').map((s) => s.trim()).filter(Boolean) : [];
    const long = mark?.[1] === 'long' ? mark[2].replace(/^\(|\)$/g, '') || 'long' : undefined;
    blocks.push({ where: `${file}:${i + 1}`, language: open[1] as 'sh' | 'ts', code: lines.slice(i + 1, end).join('\n') + '\n', needs, ...(long ? { long } : {}) });
    i = end;
  }
  return blocks;
}

function closingFence(lines: string[], open: number, file: string): number {
  for (let j = open + 1; j < lines.length; j++) if (lines[j].startsWith('```')) return j;
  throw new Error(`${file}:${open + 1}: a code block is never closed`);
}

export function allRunnableBlocks(root: string): DocBlock[] {
  return docFiles(root).flatMap((file) => runnableBlocks(file, readFileSync(join(root, file), 'utf8')));
}
