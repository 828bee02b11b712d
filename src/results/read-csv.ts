// Reading the per-frame CSV back (csv.ts writes it): for an evaluation that
// reads the records another run wrote. Every line and cell is checked against
// the schema; an error names the source, the line and the column. Numbers
// come back as written (6 decimals).
import { FATES, type Fate, type FrameRecord } from './frame-record.ts';
import { FRAME_COLUMNS } from './csv.ts';
import { RecordError } from './validate.ts';

type Column = (typeof FRAME_COLUMNS)[number];

export function readFramesCsv(text: string, source: string): FrameRecord[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) throw new RecordError(`${source}: empty (expected the header line ${FRAME_COLUMNS.join(',')})`);
  if (lines[0] !== FRAME_COLUMNS.join(',')) throw new RecordError(`${source}:1: not a frames CSV header: expected ${FRAME_COLUMNS.join(',')}, got ${JSON.stringify(lines[0].slice(0, 80))}`);
  return lines.slice(1).map((line, k) => frameOf(line, `${source}:${k + 2}`));
}

function frameOf(line: string, where: string): FrameRecord {
  const cells = line.split(',');
  if (cells.length !== FRAME_COLUMNS.length) throw new RecordError(`${where}: ${cells.length} cells, expected ${FRAME_COLUMNS.length}`);
  const raw = Object.fromEntries(FRAME_COLUMNS.map((c, i) => [c, cells[i]])) as Record<Column, string>;
  const fail = (column: Column, want: string): never => {
    throw new RecordError(`${where}: column ${column} must be ${want}, got ${JSON.stringify(raw[column])}`);
  };
  const number = (column: Column): number | undefined => {
    const v = raw[column];
    if (v === '') return undefined;
    const n = Number(v);
    return Number.isFinite(n) && /^-?\d+(\.\d+)?$/.test(v) ? n : fail(column, 'empty or a decimal number');
  };
  const required = (column: Column): number => number(column) ?? fail(column, 'a decimal number');
  const integer = (column: Column): number | undefined => {
    const n = number(column);
    return n === undefined || Number.isSafeInteger(n) ? n : fail(column, 'empty or an integer');
  };
  const fate = raw.fate as Fate;
  if (!FATES.includes(fate)) fail('fate', `one of ${FATES.join(', ')}`);
  if (!['', '0', '1'].includes(raw.key_frame)) fail('key_frame', 'empty, 0 or 1');
  const record: FrameRecord = {
    sourceIndex: integer('source_index') ?? fail('source_index', 'an integer'),
    captureMs: required('capture_ms'),
    fate,
    frameNumber: integer('frame_number'),
    sendMs: number('send_ms'),
    bytes: integer('bytes'),
    quantizer: integer('quantizer'),
    keyFrame: raw.key_frame === '' ? undefined : raw.key_frame === '1',
    firstArrivalMs: number('first_arrival_ms'),
    lastArrivalMs: number('last_arrival_ms'),
    shownMs: number('shown_ms'),
    ssim: number('ssim'),
    displayMs: number('display_ms'),
    signalDelayMs: required('signal_delay_ms'),
  };
  // Absent fields stay absent, as in the records written.
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as unknown as FrameRecord;
}
