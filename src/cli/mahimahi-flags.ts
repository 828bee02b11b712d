// Mahimahi's command-line habits that linkshell follows in both modes
// (getopt's reading of the options is src/common/command-line.ts's): mm-onoff
// as an option of its own, and mm-link's --meter-* flags refused
// with a pointer to what replaces them.

import { usageError } from '../common/errors.ts';
import { numberValue } from '../common/validate.ts';
import type { OnOffSpec } from '../link-emu/path.ts';

/** mm-link's live graph flags: no window here; a log and `linkshell graph` replace them. */
export const METER_FLAGS = ['meter-uplink', 'meter-downlink', 'meter-uplink-delay', 'meter-downlink-delay', 'meter-all'] as const;

/** Longest mean on or off period (ms): an hour. */
export const MAX_ONOFF_MS = 3_600_000;

/** Throws a bad-argument error for the first --meter-* flag among linkshell's own arguments. */
export function rejectMeterFlags(args: readonly string[]): void {
  for (const arg of args) {
    const name = /^--(meter-[a-z-]+)(=.*)?$/.exec(arg)?.[1];
    if (name === undefined) continue;
    const direction = name.includes('downlink') ? 'downlink' : 'uplink';
    throw usageError(
      `--${name}: linkshell draws no live graph; log the direction (--${direction}-log FILE) and plot the log with \`linkshell graph FILE\``,
    );
  }
}

/**
 * --uplink-onoff ON_MS,OFF_MS: mm-onoff's mean on and off times (which mm-onoff
 * takes in seconds), in milliseconds here; with `periodic`, --uplink-intermittent:
 * mm-intermittent's fixed times. As both tools, one of the two may be 0
 * (0,1000: always off; 1000,0: always on), not both.
 */
export function onOffValue(name: string, text: string | undefined, { periodic = false } = {}): OnOffSpec | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',');
  const tool = periodic ? 'mm-intermittent' : 'mm-onoff';
  const what = periodic ? 'on and off times' : 'mean on and off times';
  if (parts.length !== 2) {
    throw usageError(`--${name} must be ON_MS,OFF_MS (${what} in ms, as ${tool}'s in seconds), got ${JSON.stringify(text)}`);
  }
  const [meanOnMs, meanOffMs] = parts.map((part, i) => numberValue(`${name} ${i === 0 ? 'ON_MS' : 'OFF_MS'}`, part, { min: 0, max: MAX_ONOFF_MS }, 'ms')) as [number, number];
  if (meanOnMs === 0 && meanOffMs === 0) throw usageError(`--${name}: ON_MS and OFF_MS cannot both be 0 (as ${tool}), got ${JSON.stringify(text)}`);
  return periodic ? { meanOnMs, meanOffMs, periodic: true } : { meanOnMs, meanOffMs };
}
