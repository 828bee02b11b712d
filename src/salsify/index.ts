// Public entry point of the Salsify implementation: endpoints, wire format,
// model codec, its result records (the schema, summary, table, JSON and CSV
// are src/results/) and the simulator runner.
export { SalsifySender, SCHEMES, FRAME_CLOCKS, DEFAULT_CONSERVATIVE_MS, type Scheme, type FrameClock, type SenderOptions, type SenderEvent, type SenderCounters } from './sender.ts';
export { SalsifyReceiver, type ReceiverOptions, type ReceiverCounters, type ShownFrame } from './receiver.ts';
export {
  decodeDatagram, encodeAck, encodeFragment, splitFrame, DatagramError, MAX_DATAGRAM_BYTES, MAX_FRAGMENT_PAYLOAD, REFERENCE_FRAGMENT_PAYLOAD,
  type AckDatagram, type FragmentDatagram, type Datagram, type DatagramProblem,
} from './datagram.ts';
export { createModelCodec, inspectModelFrame, modelFrameBytes, modelSsim, type ModelCodec } from './model-codec.ts';
export {
  modelledEncodeMs, modelledDecodeMs, modelledDecodeMsForFrame, paperEncodeMs, encodeTimeFunction, referenceFrameCycleMs, singleBufferFrameCycleMs, ENCODE_TIMINGS, PAPER_ENCODE_MS_720P,
  type EncodeTimingModel,
} from './timing-model.ts';
export { chooseEncoding, chooseLargestFitting, type Choice } from './choose-encoding.ts';
export { candidateQuantizers, stepQuantizer } from './quantizer.ts';
export { Pacer, pacingGapUs } from './pacer.ts';
export { salsifyFrameRecords, senderView, type SenderView, type ReceiverView, type SentFrame } from './metrics.ts';
export { FrameArrivals, type FrameArrival } from './frame-arrivals.ts';
export {
  runSalsifySim, resolveSimConfig, DEFAULT_SIM_CONFIG, type SalsifySimConfig, type SalsifySimInput, type SalsifySimResult, type SalsifySimCounters,
} from './sim-runner.ts';
export { simPresets, simPresetOn, verizonTrace, VERIZON_TRACE, VERIZON_STAND_IN, PRESET_NAMES, simPreset, expandPreset, type SimPreset, type PresetConfig } from './presets.ts';
export { oracle, type FutureLink, type OracleParams } from './schemes/oracle.ts';
export { SIM_SCHEME_NAMES, SIMULATOR_ONLY_SCHEMES } from './schemes/registry.ts';
export { openCodec, openVideo } from './open-inputs.ts';
