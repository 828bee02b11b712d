// A pending callback that can be cancelled: what every clock in the toolkit
// (the simulator's, the wall-clock scheduler's, an endpoint context's) returns.

export interface TimerHandle {
  cancel(): void;
}
