// Help text that names what a command accepts, built from the lists the
// libraries define (the scheme registry, the codec list), so that a scheme or
// codec added there appears in every help without an edit here.
import { CODECS } from '../salsify/open-inputs.ts';
import { SCHEMES } from '../salsify/sender.ts';
import { DEFAULT_SIM_CONFIG } from '../salsify/sim-runner.ts';

/** The scheme a command runs when none is named: the simulator's default, for every command. */
export const DEFAULT_SCHEME = DEFAULT_SIM_CONFIG.scheme;

/** The codec a command uses when none is named. */
export const DEFAULT_CODEC = DEFAULT_SIM_CONFIG.codec;

/** Width of the description column of formatHelp's option rows. */
const DESCRIPTION_WIDTH = 54;

/** `text`'s words in lines of at most `width` characters (a longer word gets a line of its own). */
export function wrapWords(text: string, width = DESCRIPTION_WIDTH): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}

/** "a, b, c": every scheme name, in the registry's order. */
export function schemeNames(): string {
  return SCHEMES.join(', ');
}

/** "a, b": every codec name. */
export function codecNames(): string {
  return CODECS.join(', ');
}
