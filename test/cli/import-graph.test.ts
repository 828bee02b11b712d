// The import graph of src/: no cycles, no library importing a command-line
// front end (src/cli), and src/common a leaf (it imports only itself). Every
// import counts: static, type-only, re-exports and dynamic import() of a literal.
// Command lines are parsed by the front ends only: no library uses
// node:util's parseArgs or the option layer's parseCommandLine and formatHelp.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative module specifiers a TypeScript file imports (comments removed first). */
export function importsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) found.push(m[1]!);
  return found.filter((spec) => spec.startsWith('.'));
}

/** The graph: module (path relative to src/) -> modules it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    const targets = importsOf(readFileSync(file, 'utf8')).map((spec) => relative(src, resolve(dirname(file), spec)));
    graph.set(relative(src, file), [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle found by a depth-first search, each as a path a -> b -> ... -> a. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

const layerOf = (module: string) => module.split('/')[0]!;
const LIBRARIES = ['link-emu', 'net', 'linkshell', 'salsify', 'codec-bridge', 'sprout'];

test('the import scanner sees every form of import, and the cycle finder finds cycles', () => {
  const text = [
    "import { a } from './a.ts';",
    "import type { B } from '../b.ts';",
    "export { c } from './c.ts';",
    "export * from './d.ts';",
    "import './e.ts';",
    "const f = await import('./f.ts');",
    "let g: typeof import('./g.ts');",
    "import {\n  h,\n  i,\n} from './h.ts';",
    "// import { no } from './comment.ts';",
    "import { x } from 'node:fs';",
  ].join('\n');
  assert.equal(importsOf(text).sort(), ['../b.ts', './a.ts', './c.ts', './d.ts', './e.ts', './f.ts', './g.ts', './h.ts']);
  const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
  assert.equal(cyclesOf(graph), [['a', 'b', 'c', 'a']]);
  assert.equal(cyclesOf(new Map([['a', ['b']], ['b', []]])), []);
});

test('every import resolves to a file of src/', () => {
  const graph = importGraph();
  const missing = [...graph].flatMap(([from, targets]) => targets.filter((t) => !graph.has(t)).map((t) => `${from} -> ${t}`));
  assert.equal(missing, []);
});

test('no import cycles in src/', () => {
  const cycles = cyclesOf(importGraph()).map((c) => c.join(' -> '));
  assert.equal(cycles, [], cycles.join('\n'));
});

test('no library imports src/cli; src/common imports only src/common', () => {
  const wrong: string[] = [];
  for (const [from, targets] of importGraph()) {
    for (const to of targets) {
      if (LIBRARIES.includes(layerOf(from)) && layerOf(to) === 'cli') wrong.push(`${from} -> ${to} (a library importing a command-line front end)`);
      if (layerOf(from) === 'common' && layerOf(to) !== 'common') wrong.push(`${from} -> ${to} (src/common must be a leaf)`);
    }
  }
  assert.equal(wrong, [], wrong.join('\n'));
});

/** Names a module imports from `module` (any import form with braces: `import { a, b as c } from 'module'`). */
export function namesImportedFrom(text: string, module: RegExp): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const names: string[] = [];
  for (const m of code.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/gm)) {
    if (!module.test(m[2]!)) continue;
    for (const part of m[1]!.split(',')) {
      const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!;
      if (name) names.push(name);
    }
  }
  for (const m of code.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) if (module.test(m[1]!)) names.push('*');
  for (const m of code.matchAll(/^\s*import\s+(?:\*\s+as\s+)?\w+\s+from\s*['"]([^'"]+)['"]/gm)) if (module.test(m[1]!)) names.push('*');
  return names;
}

test('the name scanner sees named, renamed, type and namespace imports', () => {
  const text = [
    "import { parseArgs, type ParseArgsConfig } from 'node:util';",
    "import { inspect as show } from 'util';",
    "import * as util from 'node:util';",
    "// import { no } from 'node:util';",
    "import { x } from './util.ts';",
  ].join('\n');
  assert.equal(namesImportedFrom(text, /^(node:)?util$/), ['parseArgs', 'ParseArgsConfig', 'inspect', '*']);
});

const PARSING = {
  util: { module: /^(node:)?util$/, names: ['parseArgs', '*'] },
  validate: { module: /(^|\/)common\/validate\.ts$/, names: ['parseCommandLine', 'formatHelp', '*'] },
};

test('command lines are parsed and helps formatted only in front ends (src/cli), not in src/salsify/live', () => {
  const wrong: string[] = [];
  for (const file of sourceFiles(join(src, 'salsify', 'live'))) {
    const text = readFileSync(file, 'utf8');
    for (const { module, names } of Object.values(PARSING)) {
      for (const name of namesImportedFrom(text, module)) if (names.includes(name)) wrong.push(`${relative(src, file)} imports ${name} (${module.source})`);
    }
  }
  assert.equal(wrong, [], wrong.join('\n'));
});

test.run();
