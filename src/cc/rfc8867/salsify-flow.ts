// Salsify's own transport as a flow of the RFC 8867 cases: the live
// SalsifySender and SalsifyReceiver (src/salsify) over the flow's two
// EndpointContexts, with the model codec (its modelled frame sizes and encode
// times) on a synthetic 640x360 30 fps video. Salsify has no target rate: it
// sizes each frame to what the link delivered (its frame sizes against the
// capacity are the flow's send rate in the metrics).
//
// Salsify has no pause either: pause() stops the call (no more captures) and
// resume() starts a new one on the same contexts (a new connection id, the
// new receiver replacing the old one), as an application would after a pause
// long enough to tear down its session.
import type { Flow, FlowFactory } from '../flow.ts';
import { createModelCodec } from '../../salsify/model-codec.ts';
import { openVideo } from '../../salsify/open-inputs.ts';
import { SalsifyReceiver } from '../../salsify/receiver.ts';
import { SalsifySender, type Scheme } from '../../salsify/sender.ts';
import { SCHEME_NAMES } from '../../salsify/schemes/registry.ts';
import type { VideoSource } from '../../codec-bridge/video/video-source.ts';
import { usageError } from '../../common/errors.ts';

export interface SalsifyFlowOptions {
  readonly scheme: string;
  /** Video (default synthetic:640x360@30). */
  readonly video?: string;
}

/** The factory, and close() to release the codec and the videos its flows opened. */
export interface SalsifyFlow {
  readonly factory: FlowFactory;
  close(): Promise<void>;
}

export async function salsifyFlow(options: SalsifyFlowOptions): Promise<SalsifyFlow> {
  if (!(SCHEME_NAMES as readonly string[]).includes(options.scheme)) throw usageError(`unknown Salsify scheme ${JSON.stringify(options.scheme)} (one of ${SCHEME_NAMES.join(', ')})`);
  const scheme = options.scheme as Scheme;
  const codec = createModelCodec();
  const sources: VideoSource[] = [];
  const factory: FlowFactory = {
    name: scheme,
    create(senderCtx, receiverCtx, flow): Flow {
      let sender: SalsifySender | undefined;
      let session = 0;
      let source: VideoSource | undefined;
      const begin = () => {
        const connectionId = (0x5a150000 + flow.flowId * 256 + session++) >>> 0;
        // The receiver is built first, so the first datagram finds it.
        new SalsifyReceiver({ ctx: receiverCtx, codec, connectionId });
        sender = new SalsifySender({ ctx: senderCtx, codec, source: source!, scheme, connectionId, concurrentEncodes: true });
        sender.start();
      };
      return {
        start: () => {
          // The synthetic source opens synchronously in effect; its promise settles inside the simulator's work().
          void senderCtx.work(() => openVideo(options.video ?? 'synthetic:640x360@30', flow.seed), 0).then((opened) => {
            source = opened;
            sources.push(opened);
            begin();
          });
        },
        pause: () => sender?.stop(),
        resume: () => {
          if (source) begin();
        },
        stop: () => sender?.stop(),
      };
    },
  };
  return {
    factory,
    close: async () => {
      for (const s of sources) await s.close();
      await codec.close();
    },
  };
}
