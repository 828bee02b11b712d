// A long-lived bulk TCP transfer (RFC 8867 5.6's competing TCP flow): one
// connection that sends for ever from start() until stop(); pause() makes it
// application-limited until resume().
import type { FlowOptions } from '../cc/flow.ts';
import type { EndpointContext } from '../net/endpoint.ts';
import type { TcpSender } from './sender.ts';
import { checkTcpFlowOptions, TcpFlowEnds, type TcpFlow, type TcpFlowFactory, type TcpFlowOptions } from './tcp-flow.ts';

export function tcpBulkFlow(options: TcpFlowOptions): TcpFlowFactory {
  checkTcpFlowOptions(options);
  return {
    name: `tcp-${options.cc}`,
    create(sender: EndpointContext, receiver: EndpointContext, _flow: FlowOptions): TcpFlow {
      const ends = new TcpFlowEnds(sender, receiver, options);
      let connection: TcpSender | undefined;
      let stopped = false;
      return {
        start() {
          if (connection !== undefined || stopped) return;
          connection = ends.open(Infinity);
        },
        pause() {
          connection?.pause();
        },
        resume() {
          connection?.resume();
        },
        stop() {
          stopped = true;
          ends.close();
        },
        stats: () => ends.stats(),
      };
    },
  };
}
