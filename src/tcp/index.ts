// Deterministic models of TCP as cross traffic: NewReno and CUBIC senders,
// a delayed-ACK receiver, and the flows the RFC 8867 suite runs (a bulk flow,
// short flows). Everything is written against EndpointContext.
export { tcpBulkFlow } from './bulk-flow.ts';
export { tcpShortFlows, RFC8868_SHORT_FLOWS, type TcpShortFlowsOptions } from './short-flows.ts';
export { checkTcpFlowOptions, type TcpFlow, type TcpFlowFactory, type TcpFlowOptions, type TcpFlowStats, type TcpTransfer } from './tcp-flow.ts';
export type { TcpCcName, CongestionControl } from './congestion-control.ts';
export { NewReno, DEFAULT_NEWRENO_SLOW_START } from './newreno.ts';
export { Cubic, cubicWindow, cubicK, CUBIC_C, CUBIC_BETA, CUBIC_ALPHA, DEFAULT_CUBIC_SLOW_START, LINUX_START_GROWTH_ACKS } from './cubic.ts';
export { SlowStart, SLOW_START_KINDS, type SlowStartKind } from './slow-start.ts';
export { HyStartPlusPlus, hyStartRttThreshold, type HyStartPhase } from './hystart-plus-plus.ts';
export { LinuxHyStart, linuxHyStartAckDelay, linuxHyStartDelayThreshold } from './hystart-linux.ts';
export { RtoEstimator, RFC6298_MIN_RTO_MS, LINUX_MIN_RTO_MS, type RtoOptions } from './rto.ts';
export { TcpSender, type TcpSenderOptions, type TcpSenderStats, type CwndSample } from './sender.ts';
export type { RecoveryState } from './loss-recovery.ts';
export { TcpReceiver, DEFAULT_DELAYED_ACK_MS, DEFAULT_RECEIVE_WINDOW, type TcpReceiverOptions } from './receiver.ts';
export { encodeSegment, decodeSegment, TcpSegmentError, DEFAULT_MSS, HEADER_BYTES, FLAG_ACK, FLAG_FIN, FLAG_SACK, FLAG_SYN, MAX_SACK_BLOCKS, type Segment } from './segment.ts';
export { mathisThroughput, MATHIS_C } from './mathis.ts';
export { ProportionalRateReduction, type PrrBound } from './prr.ts';
export { Rack, RACK_DUP_THRESH, type RackSegment } from './rack.ts';
export { RackScoreboard } from './rack-scoreboard.ts';
export { TailLossProbe, probeTimeout, TLP_WC_DEL_ACK_MS, TLP_INITIAL_PTO_MS } from './tlp.ts';
