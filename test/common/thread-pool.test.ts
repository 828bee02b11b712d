import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { threadPoolSize } from '../../src/common/thread-pool.ts';

test('unset: libuv default of 4 threads', () => {
  assert.is(threadPoolSize({}), 4);
});

test('a number is read as C atoi reads it', () => {
  assert.is(threadPoolSize({ UV_THREADPOOL_SIZE: '8' }), 8);
  assert.is(threadPoolSize({ UV_THREADPOOL_SIZE: ' 16threads' }), 16);
  assert.is(threadPoolSize({ UV_THREADPOOL_SIZE: '1024' }), 1024);
});

test('0 or no digits is 1 thread; above 1024 or negative is 1024', () => {
  assert.is(threadPoolSize({ UV_THREADPOOL_SIZE: '0' }), 1);
  assert.is(threadPoolSize({ UV_THREADPOOL_SIZE: 'many' }), 1);
  assert.is(threadPoolSize({ UV_THREADPOOL_SIZE: '' }), 1);
  assert.is(threadPoolSize({ UV_THREADPOOL_SIZE: '5000' }), 1024);
  assert.is(threadPoolSize({ UV_THREADPOOL_SIZE: '-3' }), 1024);
});

test.run();
