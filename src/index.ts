// The package's root entry point: the parts most programs start from. Each
// layer has its own entry point too, with everything it makes public:
// 'lowlat-video-toolkit/link-emu', '/net', '/codec-bridge', '/sprout',
// '/salsify', '/results', '/cc' and '/tcp'.
export { parseTrace, loadTrace, openTrace, constantRateTrace, cellularTrace, createQueue, TraceLink, pathStages, replay, linkLogStats, type Trace, type PathSpec } from './link-emu/index.ts';
export { Simulator, createSimNetwork, createUdpEndpoint, type EndpointContext, type SimNetwork } from './net/index.ts';
export { runSalsifySim, PRESET_NAMES, simPreset, SalsifySender, SalsifyReceiver, type SalsifySimInput, type SalsifySimResult } from './salsify/index.ts';
export { runRfc8867Case, runBottleneck, builtinControllerNames, type RateController, type RateControllerModule, type CaseResult } from './cc/index.ts';
export { tcpBulkFlow, NewReno, Cubic } from './tcp/index.ts';
