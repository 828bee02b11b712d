import { test } from 'uvu';
import { recorded } from './interval.ts';

test('passes', () => recorded('e-passes'));
test.run();
