// Public entry point of the two ways to run endpoints: the deterministic
// simulator in virtual time, and real UDP sockets in wall-clock time.
export type { EndpointContext, TimerHandle } from './endpoint.ts';
export { Simulator, type RunOptions } from './simulator.ts';
export { createSimNetwork, DEFAULT_OVERHEAD_BYTES, type SimNetwork, type SimNetworkOptions } from './sim-network.ts';
export { createUdpEndpoint, type UdpEndpoint, type UdpEndpointOptions } from './udp-endpoint.ts';
export { WallClockScheduler, createMonotonicClock, type TimerKind } from './wall-clock.ts';
