import { test } from 'uvu';
import { recorded } from './interval.ts';

test('passes', () => recorded('a-passes'));
test('passes too', () => {});
test.run();
