// What `runRfc8867Case(id, controller)` and `ccbench --controller` accept as
// the controller under test, turned into the FlowFactory the cases run:
// - a FlowFactory (anything with name and create()): as it is;
// - a rate controller module (name and createController()): put to work by
//   the media flow (src/cc/media-flow.ts: paced packets, transport-wide
//   feedback every 100 ms);
// - a name: salsify-N (Salsify's own transport, salsify-flow.ts), cbr:MBPS
//   (a constant-bitrate calibration source), or a built-in controller
//   (gcc, aimd) or a module's path, as src/cc/controllers.ts loads them.
import type { RateControllerModule } from '../controller.ts';
import type { FlowFactory } from '../flow.ts';
import { cbrFlow } from '../sim/cbr-flow.ts';
import { usageError } from '../../common/errors.ts';
import { loadControllerModule } from '../controllers.ts';
import { mediaFlow } from '../media-flow.ts';

export type ControllerInput = string | FlowFactory | RateControllerModule;

/** A resolved controller: its factory, and what to release when done (Salsify's codec). */
export interface ResolvedController {
  readonly factory: FlowFactory;
  close(): Promise<void>;
}

function isFlowFactory(x: unknown): x is FlowFactory {
  return typeof x === 'object' && x !== null && typeof (x as FlowFactory).create === 'function' && typeof (x as FlowFactory).name === 'string';
}

function isControllerModule(x: unknown): x is RateControllerModule {
  return typeof x === 'object' && x !== null && typeof (x as RateControllerModule).createController === 'function' && typeof (x as RateControllerModule).name === 'string';
}

async function asMediaFlow(module: RateControllerModule): Promise<FlowFactory> {
  return mediaFlow(module);
}

const SALSIFY = /^salsify-\d+$|^salsify-targetsize$/;
const CBR = /^cbr:(.*)$/;

export async function resolveController(input: ControllerInput): Promise<ResolvedController> {
  const none = async () => {};
  if (isFlowFactory(input)) return { factory: input, close: none };
  if (isControllerModule(input)) return { factory: await asMediaFlow(input), close: none };
  if (typeof input !== 'string') throw new TypeError('controller must be a name, a path, a FlowFactory or a rate controller module');
  const cbr = CBR.exec(input);
  if (cbr) {
    const mbps = Number(cbr[1]);
    if (!/^\d+(\.\d+)?$/.test(cbr[1]!) || !(mbps > 0 && mbps <= 100_000)) throw usageError(`--controller cbr:MBPS needs a rate > 0 and at most 100000 Mbit/s, got ${JSON.stringify(input)}`);
    return { factory: cbrFlow({ bitrate: Math.round(mbps * 1e6) }), close: none };
  }
  if (SALSIFY.test(input)) {
    const { salsifyFlow } = await import('./salsify-flow.ts');
    return salsifyFlow({ scheme: input });
  }
  return { factory: await asMediaFlow(await loadControllerModule(input)), close: none };
}
