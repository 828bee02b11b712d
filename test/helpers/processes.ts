// What is running, for tests that check a command left nothing behind.
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of processes other than this one whose command line (arguments joined by spaces) mentions `text`. */
export function processesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      // The arguments are separated by NULs: read as one line with spaces, as ps shows it.
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').replace(/\0/g, ' ').includes(text)) found.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}
