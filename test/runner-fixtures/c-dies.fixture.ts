import { test } from 'uvu';
import { recorded } from './interval.ts';

test('ends its process', async () => {
  await recorded('c-dies');
  process.exit(7);
});
test.run();
