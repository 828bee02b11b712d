export { InterArrivalEstimator, type InterArrivalOptions, type Arrival } from './interarrival-estimator.ts';
export { targetFrameSize, DEFAULT_DELAY_BUDGET_MS, type TargetSizeInput } from './target-size.ts';
export { InFlightCounter } from './in-flight.ts';
