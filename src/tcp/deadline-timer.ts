// A timer re-armed on most ACKs without a timer event each time: arm() moves
// the deadline; the pending event, if it comes first, finds the deadline
// later and waits again. The sender's retransmission, reordering and probe
// timers are each one.
import type { TimerHandle } from '../common/timer.ts';

export interface DeadlineClock {
  now(): number;
  setTimer(delayMs: number, callback: () => void): TimerHandle;
}

export class DeadlineTimer {
  private deadline: number | undefined = undefined;
  private handle: TimerHandle | undefined = undefined;
  private handleAt = Infinity;

  constructor(private readonly clock: DeadlineClock, private readonly onExpire: () => void) {}

  /** The deadline, undefined when disarmed. */
  at(): number | undefined {
    return this.deadline;
  }

  arm(at: number): void {
    this.deadline = at;
    if (this.handle !== undefined && this.handleAt <= at) return;
    this.handle?.cancel();
    this.schedule(at);
  }

  /** No expiry (a pending event, if any, will find nothing to do). */
  disarm(): void {
    this.deadline = undefined;
  }

  /** Disarms and cancels the pending event: nothing stays scheduled. */
  cancel(): void {
    this.deadline = undefined;
    this.handle?.cancel();
    this.handle = undefined;
    this.handleAt = Infinity;
  }

  private schedule(at: number): void {
    this.handleAt = at;
    this.handle = this.clock.setTimer(Math.max(0, at - this.clock.now()), () => this.fire());
  }

  private fire(): void {
    this.handle = undefined;
    this.handleAt = Infinity;
    const deadline = this.deadline;
    if (deadline === undefined) return;
    if (this.clock.now() < deadline) {
      this.schedule(deadline);
      return;
    }
    this.deadline = undefined;
    this.onExpire();
  }
}
