// The results pipeline: one record schema for every producer of video runs,
// and the summary, table, JSON and CSV made from it.
export { FATES, SENT_FATES, type Fate, type FrameRecord, type LinkUse, type RunRecord } from './frame-record.ts';
export { checkRun, RecordError } from './validate.ts';
export { displayTimes, withSignalDelays, type ObservedFrame } from './display-times.ts';
export { distribution, percentile, type Distribution } from './statistics.ts';
export { LinkUseMeter, utilization } from './link-use.ts';
export { summarize, FATE_COUNT, type Summary } from './summary.ts';
export { formatResultsTable, type TableRow } from './table.ts';
export { runToJson, jsonText } from './json.ts';
export { framesToCsv, summariesToCsv, FRAME_COLUMNS, SUMMARY_COLUMNS } from './csv.ts';
export { readFramesCsv } from './read-csv.ts';
export { writeResultsFile, makeResultsDirectory } from './writer.ts';
export { capturedIn, checkWindow, framesInWindow, measureWindow, type MeasureWindow } from './window.ts';
