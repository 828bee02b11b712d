// A run of the list with its stored result: what every output of an eval is built from.
import type { EvalRun } from './run-list.ts';
import type { StoredRun } from './store.ts';

export interface Finished {
  readonly run: EvalRun;
  readonly stored: StoredRun;
}
