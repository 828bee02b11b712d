// The size of Node's thread pool (libuv's), which runs the native addons'
// async work (an SSIM off the main thread, for one). libuv reads it once, at
// the pool's start, from UV_THREADPOOL_SIZE (src/threadpool.c, init_threads):
// unset, 4; otherwise the number as C's atoi reads it, 0 (or no digits) taken
// as 1, and anything above 1024 (a negative number too: libuv's count is
// unsigned) as 1024.

export const DEFAULT_THREAD_POOL_SIZE = 4;
export const MAX_THREAD_POOL_SIZE = 1024;

/** The threads of Node's thread pool, from `env` as libuv reads it. */
export function threadPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.UV_THREADPOOL_SIZE;
  if (text === undefined) return DEFAULT_THREAD_POOL_SIZE;
  const leading = /^\s*([+-]?\d+)/.exec(text);
  const n = leading === null ? 0 : Number(leading[1]);
  if (n === 0) return 1;
  if (n < 0 || n > MAX_THREAD_POOL_SIZE) return MAX_THREAD_POOL_SIZE;
  return n;
}
