// Builds a queue discipline from mm-link's command-line names and argument
// syntax: --uplink-queue=KIND --uplink-queue-args="NAME=NUMBER[, NAME=NUMBER...]".
//
//   infinite                      no arguments
//   droptail, drophead            packets=N and/or bytes=N (at least one > 0)
//   codel                         target=MS, interval=MS, plus packets=N and/or bytes=N
//   pie                           qdelay_ref=MS, max_burst=MS, plus packets=N and/or bytes=N
//
// Numbers are non-negative decimal integers; a limit of 0 means "no limit of
// that kind", as in mm-link. mm-link gives target, interval, qdelay_ref and
// max_burst no defaults (it refuses a codel or pie queue without them), and
// neither do we; RFC 8289 suggests target=5,interval=100 and RFC 8033
// qdelay_ref=15,max_burst=150. PIE's other parameters are Mahimahi's fixed
// ones (see queues/pie.ts): alpha 0.125, beta 1.25, a 30 ms update period, a
// 16384-byte rate-measurement threshold and a 1504-byte maximum packet.
//
// Stricter than mm-link, which scans the text for each name it knows: an
// unknown kind or name, a pair without "=", an empty pair, a repeated name, or
// a value that is not a non-negative integer is an error naming the kind, the
// name and the value.

import type { PacketQueue } from './queue.ts';
import type { Rng } from '../common/random.ts';
import { CoDelQueue } from './queues/codel.ts';
import { DropHeadQueue } from './queues/drophead.ts';
import { DropTailQueue } from './queues/droptail.ts';
import { InfiniteQueue } from './queues/infinite.ts';
import { PieQueue } from './queues/pie.ts';
import { ToolkitError } from '../common/errors.ts';

export type QueueKind = 'infinite' | 'droptail' | 'drophead' | 'codel' | 'pie';

/** The argument names each discipline takes, in mm-link's spelling. */
export const QUEUE_ARGUMENTS: Readonly<Record<QueueKind, readonly string[]>> = {
  infinite: [],
  droptail: ['packets', 'bytes'],
  drophead: ['packets', 'bytes'],
  codel: ['packets', 'bytes', 'target', 'interval'],
  pie: ['packets', 'bytes', 'qdelay_ref', 'max_burst'],
};

export const QUEUE_KINDS = Object.keys(QUEUE_ARGUMENTS) as QueueKind[];

/** Values suggested by the RFCs, quoted in the messages for missing parameters. */
const SUGGESTED: Readonly<Record<string, string>> = {
  target: 'RFC 8289 suggests target=5',
  interval: 'RFC 8289 suggests interval=100',
  qdelay_ref: 'RFC 8033 suggests qdelay_ref=15',
  max_burst: 'RFC 8033 suggests max_burst=150',
};

const MAX_VALUE = 0xffffffff; // mm-link reads every value into an unsigned int

/** A bad queue kind or argument; `kind`, `key` and `value` say which. */
export class QueueConfigError extends ToolkitError {
  constructor(message: string, readonly kind: string, readonly key?: string, readonly value?: string) {
    super('ERR_BAD_ARGUMENT', message);
    this.name = 'QueueConfigError';
  }
}

export function isQueueKind(kind: string): kind is QueueKind {
  return Object.prototype.hasOwnProperty.call(QUEUE_ARGUMENTS, kind);
}

/**
 * Parses mm-link queue arguments ("packets=100,bytes=30000"; spaces around
 * pairs and "=" allowed) for the named kind, checking the names it takes.
 * Returns the values by name; an empty string gives an empty map.
 */
export function parseQueueArgs(kind: string, args: string): Map<string, number> {
  if (!isQueueKind(kind)) throw unknownKind(kind);
  const allowed = QUEUE_ARGUMENTS[kind];
  const values = new Map<string, number>();
  if (args.trim() === '') return values;
  for (const rawPair of args.split(',')) {
    const pair = rawPair.trim();
    const eq = pair.indexOf('=');
    if (eq < 0) {
      throw new QueueConfigError(`queue ${kind}: malformed argument "${pair}" in "${args}": expected NAME=NUMBER`, kind, pair);
    }
    const key = pair.slice(0, eq).trim();
    const text = pair.slice(eq + 1).trim();
    if (key === '') {
      throw new QueueConfigError(`queue ${kind}: malformed argument "${pair}" in "${args}": no name before "="`, kind, key, text);
    }
    if (!allowed.includes(key)) {
      const takes = allowed.length === 0 ? `${kind} takes no arguments` : `${kind} takes ${allowed.join(', ')}`;
      throw new QueueConfigError(`queue ${kind}: unknown argument ${key}=${text} (${takes})`, kind, key, text);
    }
    if (values.has(key)) {
      throw new QueueConfigError(`queue ${kind}: argument ${key} given twice in "${args}"`, kind, key, text);
    }
    values.set(key, parseValue(kind, key, text));
  }
  return values;
}

function parseValue(kind: string, key: string, text: string): number {
  if (/^-\s*\d+$/.test(text)) {
    throw new QueueConfigError(`queue ${kind}: ${key}=${text} is negative (expected a non-negative integer)`, kind, key, text);
  }
  if (!/^\d+$/.test(text)) {
    throw new QueueConfigError(`queue ${kind}: ${key}=${text} is not a non-negative integer`, kind, key, text);
  }
  const value = Number(text);
  if (value > MAX_VALUE) {
    throw new QueueConfigError(`queue ${kind}: ${key}=${text} is too large (at most ${MAX_VALUE})`, kind, key, text);
  }
  return value;
}

/**
 * A queue discipline by mm-link's name and argument text, e.g.
 * createQueue('droptail', 'packets=100,bytes=30000', rng). The Rng feeds
 * PIE's random drops (the other disciplines draw nothing).
 */
export function createQueue<T>(kind: string, args: string, rng: Rng): PacketQueue<T> {
  const values = parseQueueArgs(kind, args);
  const limit = () => {
    const packets = values.get('packets') ?? 0;
    const bytes = values.get('bytes') ?? 0;
    if (packets === 0 && bytes === 0) {
      throw new QueueConfigError(
        `queue ${kind}: needs a limit, packets=N and/or bytes=N with N > 0 (got "${args}")`,
        kind,
        'packets',
        args,
      );
    }
    return { packets, bytes };
  };
  const required = (key: string) => {
    const value = values.get(key);
    if (value === undefined) {
      throw new QueueConfigError(`queue ${kind}: missing argument ${key} (milliseconds; ${SUGGESTED[key]})`, kind, key);
    }
    if (value === 0) {
      throw new QueueConfigError(`queue ${kind}: ${key}=0 must be greater than 0 (milliseconds)`, kind, key, '0');
    }
    return value;
  };
  switch (kind as QueueKind) {
    case 'infinite':
      return new InfiniteQueue<T>();
    case 'droptail':
      return new DropTailQueue<T>(limit());
    case 'drophead':
      return new DropHeadQueue<T>(limit());
    case 'codel': {
      const sizes = limit();
      return new CoDelQueue<T>({ ...sizes, target: required('target'), interval: required('interval') });
    }
    case 'pie': {
      const sizes = limit();
      return new PieQueue<T>({ ...sizes, qdelayRef: required('qdelay_ref'), maxBurst: required('max_burst'), rng });
    }
  }
}

function unknownKind(kind: string): QueueConfigError {
  return new QueueConfigError(`unknown queue "${kind}": expected one of ${QUEUE_KINDS.join(', ')}`, kind);
}
