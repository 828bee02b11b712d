// Waiting for a condition without polling: the condition is checked when
// something that may change it happens (the caller's events call `check`),
// and the wait ends when it holds or at a deadline, whichever comes first.
import type { EndpointContext } from '../../net/endpoint.ts';

export interface Condition {
  /** Resolves true when the condition held, false at the deadline. */
  readonly done: Promise<boolean>;
  /** Checks the condition again (call it on every event that may change it). */
  check(): void;
}

export function waitUntil(holds: () => boolean, ctx: Pick<EndpointContext, 'setTimer'>, deadlineMs: number): Condition {
  let settle!: (held: boolean) => void;
  let settled = false;
  const done = new Promise<boolean>((resolve) => {
    settle = (held) => {
      if (settled) return;
      settled = true;
      timer.cancel();
      resolve(held);
    };
  });
  const timer = ctx.setTimer(deadlineMs, () => settle(holds()));
  const check = () => {
    if (!settled && holds()) settle(true);
  };
  check();
  return { done, check };
}
