// Time bounds in tests. A test waits for events (a process's exit, a line on
// its output, a file); a bound only turns a hang into a failure. It is not a
// guess at how fast this machine is: a step that takes 2 s on an idle 2-core
// machine was seen to take 60 to 200 s on one shared by several test runs, so
// every bound on a step that finishes by itself (a CLI run, a child program, a
// daemon starting, a build) is this one.

/** The bound on one step that ends by itself: 10 minutes, over 100 times its time on an idle machine. */
export const HANG_BOUND_MS = 600_000;
