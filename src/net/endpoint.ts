// What an endpoint (a sender, a receiver, a congestion controller's host)
// sees of the world. The simulator (virtual time) and the UDP runtime (real
// sockets, wall-clock time) both implement it, so the same endpoint code runs
// in both.

import type { TimerHandle } from '../common/timer.ts';

export type { TimerHandle };

export interface EndpointContext {
  /** Current time in milliseconds (fractional values allowed). */
  now(): number;
  /** Calls `callback` once, `delayMs` from now (>= 0). */
  setTimer(delayMs: number, callback: () => void): TimerHandle;
  /** Sends one datagram to the peer. The bytes are handed over: do not modify them afterwards. */
  send(bytes: Uint8Array): void;
  /** Registers the handler for datagrams from the peer (one handler; a later call replaces it). */
  onReceive(handler: (bytes: Uint8Array) => void): void;
  /**
   * Runs asynchronous work such as an encode or a decode. In the simulator,
   * virtual time stands still while the task runs and its result is delivered
   * `modelledMs` later in virtual time; over real sockets the work takes as
   * long as it takes and `modelledMs` is ignored. All of an endpoint's
   * asynchronous work must go through here, or the simulator cannot keep
   * virtual time deterministic.
   */
  work<T>(task: () => Promise<T>, modelledMs: number): Promise<T>;
}

/**
 * EndpointContext.work over real time: the task runs now and takes as long
 * as it takes (the modelled time is the simulator's alone); a task that
 * throws instead of rejecting is turned into a rejection.
 */
export function workInRealTime<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task();
  } catch (error) {
    return Promise.reject(error);
  }
}
