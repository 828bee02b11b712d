// Scheme and codec names in help texts come from the scheme registry and the
// codec list: every help names every scheme and codec, and no front end or
// live module writes a scheme name itself (a scheme added to the registry
// would otherwise be missing from the help, or the help would name one that
// is gone).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrapWords } from '../../src/cli/help-names.ts';
import { SALSIFY_HELP } from '../../src/cli/salsify.ts';
import { RECEIVE_HELP } from '../../src/cli/salsify-receive.ts';
import { SEND_HELP } from '../../src/cli/salsify-send.ts';
import { CODECS } from '../../src/salsify/open-inputs.ts';
import { SCHEMES } from '../../src/salsify/sender.ts';

const src = fileURLToPath(new URL('../../src', import.meta.url));

/** The help row of `flag` with its continuation lines, as one line of words. */
function row(help: string, flag: string): string {
  const lines = help.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`  ${flag} `));
  assert.ok(start >= 0, `a row for ${flag}`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => !l.startsWith(' '.repeat(26)));
  return [lines[start]!, ...rest.slice(0, end)].join(' ').replace(/\s+/g, ' ');
}

test('every help names every scheme and every codec', () => {
  for (const [name, help] of Object.entries({ SALSIFY_HELP, SEND_HELP })) {
    const schemes = row(help, '--scheme');
    for (const scheme of SCHEMES) assert.ok(schemes.includes(scheme), `${name}: --scheme names ${scheme}: ${schemes}`);
  }
  for (const [name, help] of Object.entries({ SALSIFY_HELP, SEND_HELP, RECEIVE_HELP })) {
    const codecs = row(help, '--codec');
    for (const codec of CODECS) assert.ok(new RegExp(`\\b${codec}\\b`).test(codecs), `${name}: --codec names ${codec}: ${codecs}`);
  }
});

test('no front end or live module writes a scheme name: they come from the registry', () => {
  const wrong: string[] = [];
  for (const dir of ['cli', join('salsify', 'live')]) {
    for (const name of readdirSync(join(src, dir)).filter((n) => n.endsWith('.ts'))) {
      const code = readFileSync(join(src, dir, name), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
      for (const scheme of SCHEMES) {
        if (new RegExp(`(?<![\\w-])${scheme}(?![\\w-])`).test(code)) wrong.push(`src/${dir}/${name} names ${scheme}`);
      }
    }
  }
  assert.equal(wrong, [], wrong.join('\n'));
});

test('wrapWords fills lines up to the width', () => {
  assert.is(wrapWords('aa bb cc dd', 5), 'aa bb\ncc dd');
  assert.is(wrapWords('  one   two ', 20), 'one two');
  assert.is(wrapWords('averyveryverylongword x', 5), 'averyveryverylongword\nx');
  assert.is(wrapWords('', 5), '');
});

test.run();
