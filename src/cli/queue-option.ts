// The one check of a queue option for every front end: the kind and its
// arguments are built once as the link will build them, so a bad one is a
// bad argument naming the option before anything runs.
import { usageError } from '../common/errors.ts';
import { createRng } from '../common/random.ts';
import { createQueue } from '../link-emu/queue-factory.ts';

/** Checks `--OPTION KIND` with its arguments; throws a bad-argument error naming the option. */
export function queueOption(option: string, kind: string, args: string): void {
  try {
    createQueue(kind, args, createRng(0));
  } catch (error) {
    throw usageError(`--${option}: ${(error as Error).message}`);
  }
}
