// A TCP port free when asked (the kernel's pick for port 0), for a server that another process is
// about to start (iperf3, Slurm's daemons). Another process may take it before that one binds; the
// callers start their server at once and fail clearly if it cannot listen.
import { createServer } from 'node:net';

export async function freeTcpPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
