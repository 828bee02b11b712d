// Every command's --help has the one layout of formatHelp: "Usage:", then
// "Options:" with every description in one column.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TRACE_GEN_USAGE } from '../../src/cli/gen-trace-command.ts';
import { LINKSHELL_HELP } from '../../src/cli/linkshell-options.ts';
import { REPLAY_HELP } from '../../src/cli/replay-command.ts';
import { SALSIFY_HELP } from '../../src/cli/salsify.ts';
import { STATS_HELP } from '../../src/cli/stats-command.ts';
import { ANALYZE_HELP } from '../../src/cli/salsify-analyze.ts';
import { RECEIVE_HELP } from '../../src/cli/salsify-receive.ts';
import { SEND_HELP } from '../../src/cli/salsify-send.ts';
import { RFC8867_HELP } from '../../src/cli/ccbench.ts';

const COLUMN = 26;
const HELPS = { LINKSHELL_HELP, REPLAY_HELP, STATS_HELP, TRACE_GEN_USAGE, SALSIFY_HELP, SEND_HELP, RECEIVE_HELP, ANALYZE_HELP, RFC8867_HELP };

test('one layout: Usage, Options in one column, -h, --help', () => {
  for (const [name, help] of Object.entries(HELPS)) {
    assert.match(help, /^Usage:[ \n]/, name);
    const lines = help.split('\n');
    const start = lines.indexOf('Options:');
    assert.ok(start > 0, `${name} has an Options: section`);
    const rows = lines.slice(start + 1, lines.indexOf('', start));
    assert.ok(rows.includes(`  -h, --help${' '.repeat(COLUMN - 12)}${rows.find((r) => r.startsWith('  -h, --help'))!.slice(COLUMN)}`), `${name}: -h, --help`);
    for (const row of rows) {
      const continuation = row.startsWith(' '.repeat(COLUMN)) && row[COLUMN] !== ' ';
      const flagAlone = /^ {2}-\S.*\S$/.test(row) && !/ {2}/.test(row.slice(2));
      const flagAndText = /^ {2}-/.test(row) && row.length > COLUMN && row[COLUMN - 1] === ' ' && row[COLUMN] !== ' ' && !/ {2}\S/.test(row.slice(COLUMN)) && / {2}/.test(row.slice(2, COLUMN));
      assert.ok(continuation || flagAlone || flagAndText, `${name}: ${JSON.stringify(row)} is not in the layout`);
    }
    assert.ok(help.endsWith('\n') && !help.endsWith('\n\n'), `${name} ends with one newline`);
  }
});

test.run();
