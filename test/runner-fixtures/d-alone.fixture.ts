// test-runner: alone (the runner's test checks that nothing ran beside it)
import { test } from 'uvu';
import { recorded } from './interval.ts';

test('runs alone', () => recorded('d-alone'));
test.run();
