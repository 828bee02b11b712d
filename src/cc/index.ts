// Public entry point of congestion control: the controller and flow
// interfaces, the built-in controllers, the multi-flow bottleneck, the RFC 8867
// cases and RFC 8868's metrics.
export type { SentPacket, PacketReport, FeedbackReport, RateController, RateControllerOptions, RateControllerModule } from './controller.ts';
export { builtinControllerNames, builtinController, validateControllerModule, loadControllerModule } from './controllers.ts';
export type { FlowOptions, Flow, FlowFactory } from './flow.ts';
export { aimdController, AIMD_DEFAULTS, type AimdParameters } from './aimd.ts';
export { gccController, gccDraft02Controller, GCC_LIBWEBRTC, GCC_DRAFT02, type GccParameters, type GccSnapshot } from './gcc/gcc.ts';
export { mediaFlow, MEDIA_FLOW_DEFAULTS, type MediaFlowOptions, type MediaFlowStats, type MediaFlowFactory } from './media-flow.ts';
export { cbrFlow, type CbrOptions } from './sim/cbr-flow.ts';
export { runBottleneck, type FlowSpec, type SharedLinkSpec, type BottleneckOptions, type BottleneckResult, type FlowRun } from './sim/bottleneck.ts';
export { runRfc8867Case, type RunCaseOptions, type CaseResult } from './rfc8867/run-case.ts';
export { RFC8867_CASES, CASE_IDS, rfc8867Case, type CaseId, type Rfc8867Case } from './rfc8867/cases.ts';
export { computeCaseMetrics, jainIndex, type CaseMetrics, type FlowMetrics } from './metrics/rfc8868.ts';
