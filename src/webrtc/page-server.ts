// The small HTTP server of the call, on 127.0.0.1 (a secure context for
// getUserMedia): it serves the two pages and takes what they post
// (pages.ts), handing each body to the bench's sink. Given a camera, it
// also serves the clip's frames (GET /camera/K: frame K as I420 bytes), which
// the Firefox sender page draws as its camera.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { RECEIVER_PAGE, SENDER_PAGE } from './pages.ts';

export type Role = 'sender' | 'receiver';
export type PostKind = 'records' | 'stats' | 'checks' | 'sent' | 'frames';

export interface PostSink {
  /** A JSON batch (records, stats) or the binary frames of the receiver. */
  (role: Role, kind: PostKind, body: Buffer): void;
}

/** The clip's frames, for GET /camera/K. */
export interface CameraFrames {
  readonly frameCount: number;
  frame(k: number): Promise<Uint8Array>;
}

export interface PageServer {
  readonly origin: string;
  /** Posts taken so far, by role and kind, and bodies refused (a sink error). */
  readonly counts: Record<string, number>;
  readonly errors: string[];
  /** Requests for anything else ("GET /favicon.ico"), answered 404: the pages should make none. */
  readonly notFound: string[];
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024 * 1024;

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error(`a post of more than ${MAX_BODY} bytes`));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export async function startPageServer(sink: PostSink, camera?: CameraFrames): Promise<PageServer> {
  const counts: Record<string, number> = {};
  const errors: string[] = [];
  const notFound: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (request.method === 'GET' && (url === '/sender.html' || url === '/receiver.html')) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(url === '/sender.html' ? SENDER_PAGE : RECEIVER_PAGE);
      return;
    }
    const cameraFrame = /^\/camera\/(\d{1,9})$/.exec(url);
    if (request.method === 'GET' && camera !== undefined && cameraFrame) {
      const k = Number(cameraFrame[1]);
      if (k >= camera.frameCount) {
        notFound.push(`${request.method} ${url}`);
        response.writeHead(404).end();
        return;
      }
      camera.frame(k).then(
        (data) => {
          response.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
          response.end(data);
        },
        (error: Error) => {
          errors.push(`${url}: ${error.message}`);
          response.writeHead(500).end();
        },
      );
      return;
    }
    const post = /^\/post\/(sender|receiver)\/(records|stats|checks|sent|frames)$/.exec(url);
    if (request.method === 'POST' && post) {
      readBody(request).then(
        (body) => {
          try {
            sink(post[1] as Role, post[2] as PostKind, body);
            counts[`${post[1]}/${post[2]}`] = (counts[`${post[1]}/${post[2]}`] ?? 0) + 1;
            response.writeHead(204).end();
          } catch (error) {
            errors.push(`${url}: ${(error as Error).message}`);
            response.writeHead(400).end();
          }
        },
        (error: Error) => {
          errors.push(`${url}: ${error.message}`);
          response.writeHead(413).end();
        },
      );
      return;
    }
    notFound.push(`${request.method} ${url}`);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('page server: no TCP address');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    counts,
    errors,
    notFound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
