// --wide, the option of every command that prints a results table (salsify sim, analyze, eval,
// webrtc; ccbench rfc8867): one name, one meaning, one help row. The table fits TABLE_WIDTH
// columns unless it is given.
import { TABLE_WIDTH } from '../results/table.ts';
import { wrapWords } from './help-names.ts';

/** The parseArgs shape of --wide, to spread into a command's options. */
export const WIDE_OPTION = { wide: { type: 'boolean' } } as const;

/** The help row of --wide; `more` names what else it shows in this command ("with --seeds every seed's row"). */
export function wideHelpRow(more?: string): [string, string] {
  const shows = more === undefined ? 'every column of the table' : `every column of the table, and ${more}`;
  return ['--wide', wrapWords(`print ${shows} (default: it fits ${TABLE_WIDTH} columns)`)];
}
