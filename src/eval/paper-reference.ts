// The paper's published figures (../shared/reference/salsify-paper-results.csv,
// beside the repository; its README defines the columns): per scenario and
// system, signal delay mean / p5 / p95 (ms) and SSIM mean / p5 / p95 (dB).
// Our schemes map to the paper's system names below; a scheme the paper did
// not run (the oracle, salsify-4 on most scenarios) has no row.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toolkitError, unreadableFile } from '../common/errors.ts';

export const PAPER_RESULTS_PATH = fileURLToPath(new URL('../../../shared/reference/salsify-paper-results.csv', import.meta.url));

export interface PaperRow {
  readonly scenario: string;
  readonly system: string;
  readonly delayMeanMs: number;
  readonly delayP5Ms: number;
  readonly delayP95Ms: number;
  readonly ssimMeanDb: number;
  readonly ssimP5Db: number;
  readonly ssimP95Db: number;
}

/** The paper's name of each of our schemes that it evaluated. */
export const PAPER_SYSTEM: Readonly<Record<string, string>> = {
  'salsify-1': 'Salsify-1',
  'salsify-2': 'Salsify-2',
  'salsify-4': 'Salsify-4',
  'conventional-1s': 'Salsify-conventional-1s',
  'salsify-nograce': 'Salsify-nograce',
  'salsify-targetsize': 'Salsify-targetsize',
  'webrtc-like': 'WebRTC',
};

const COLUMNS = ['scenario', 'trace', 'system', 'signal_delay_mean_ms', 'signal_delay_p5_ms', 'signal_delay_p95_ms', 'ssim_mean_db', 'ssim_p5_db', 'ssim_p95_db'];

export class PaperResults {
  constructor(readonly rows: readonly PaperRow[], readonly source: string | null) {}

  /** The paper's row for our scheme on a scenario, if it has one. */
  forScheme(scenario: string, scheme: string): PaperRow | undefined {
    const system = PAPER_SYSTEM[scheme];
    return system === undefined ? undefined : this.rows.find((r) => r.scenario === scenario && r.system === system);
  }

  /** Every row of a scenario (all systems, ours or not). */
  forScenario(scenario: string): PaperRow[] {
    return this.rows.filter((r) => r.scenario === scenario);
  }
}

/** Reads the reference file; a missing file gives no rows (source null), a malformed one an input error naming the line. */
export function readPaperResults(path = PAPER_RESULTS_PATH): PaperResults {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new PaperResults([], null);
    throw unreadableFile(path, error);
  }
  const lines = text.trim().split('\n');
  if (lines[0]?.trim() !== COLUMNS.join(',')) throw toolkitError('ERR_BAD_INPUT', `${path}: line 1: expected the header ${COLUMNS.join(',')}`);
  const rows = lines.slice(1).map((line, i) => {
    const c = line.trim().split(',');
    const numbers = c.slice(3).map(Number);
    if (c.length !== COLUMNS.length || numbers.some((n) => !Number.isFinite(n))) {
      throw toolkitError('ERR_BAD_INPUT', `${path}: line ${i + 2}: expected ${COLUMNS.length} fields, the last 6 numbers, got ${JSON.stringify(line)}`);
    }
    const [delayMeanMs, delayP5Ms, delayP95Ms, ssimMeanDb, ssimP5Db, ssimP95Db] = numbers as [number, number, number, number, number, number];
    return { scenario: c[0]!, system: c[2]!, delayMeanMs, delayP5Ms, delayP95Ms, ssimMeanDb, ssimP5Db, ssimP95Db };
  });
  return new PaperResults(rows, path);
}
