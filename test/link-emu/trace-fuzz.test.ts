// Seeded fuzzing of parseTrace: random bytes and mutations of a real trace.
// Every input must give either a TraceFormatError or a Trace that keeps the
// invariants and agrees with a slow, separately written reference reading of
// the rules (split into lines, one regular expression per line).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createRng, type Rng } from '../../src/common/random.ts';
import { parseTrace, TraceFormatError } from '../../src/link-emu/trace-parse.ts';

const REAL = readFileSync(new URL('../../../shared/traces/ATT-LTE-driving-2016.up', import.meta.url)).subarray(0, 4000);

/** The rules, read naively: the times, or null when the input must be rejected. */
function reference(bytes: Uint8Array): number[] | null {
  const text = Buffer.from(bytes).toString('latin1'); // one char per byte
  if (text === '') return null;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop(); // the final newline ends the last line
  const out: number[] = [];
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const match = /^[ \t\v\f\r]*([+-]?)(\d+)$/.exec(line);
    if (!match) return null;
    const value = Number(match[2]);
    if (!Number.isSafeInteger(value) || BigInt(match[2]!) !== BigInt(value)) return null;
    if (match[1] === '-' && value !== 0) return null;
    if (out.length > 0 && value < out[out.length - 1]!) return null;
    out.push(value);
  }
  if (out.length === 0 || out[out.length - 1] === 0) return null;
  return out;
}

function check(bytes: Uint8Array, label: string): 'valid' | 'error' {
  let result;
  try {
    result = parseTrace(bytes, 'fuzz.trace');
  } catch (error) {
    if (!(error instanceof TraceFormatError)) throw new Error(`${label}: threw ${String(error)} instead of a TraceFormatError`);
    assert.ok(error.message.startsWith('fuzz.trace'), error.message);
    assert.is(reference(bytes), null, `${label}: rejected (${error.message}) input the reference accepts`);
    return 'error';
  }
  const { times, period } = result;
  assert.ok(times.length > 0, label);
  for (let i = 0; i < times.length; i++) {
    assert.ok(Number.isSafeInteger(times[i]) && times[i]! >= 0, `${label}: entry ${i} = ${times[i]}`);
    if (i > 0) assert.ok(times[i]! >= times[i - 1]!, `${label}: decreasing at ${i}`);
  }
  assert.is(period, times[times.length - 1]);
  assert.ok(period > 0, label);
  assert.equal(Array.from(times), reference(bytes), `${label}: differs from the reference`);
  return 'valid';
}

/** Bytes drawn mostly from the characters that matter to the format. */
function randomBytes(rng: Rng, length: number): Uint8Array {
  const alphabet = [48, 49, 50, 53, 57, 48, 49, 10, 10, 10, 13, 32, 9, 43, 45, 0, 120, 46];
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = rng.next() < 0.9 ? alphabet[rng.int(alphabet.length)]! : rng.int(256);
  return out;
}

function mutate(rng: Rng, source: Uint8Array): Uint8Array {
  const bytes = Array.from(source);
  const edits = 1 + rng.int(4);
  for (let e = 0; e < edits; e++) {
    const at = rng.int(bytes.length + 1);
    const choice = rng.int(6);
    const byte = [10, 13, 32, 48, 57, 45, rng.int(256)][rng.int(7)]!;
    if (choice === 0) bytes.splice(at, 1); // delete
    else if (choice === 1) bytes.splice(at, 0, byte); // insert
    else if (choice === 2) bytes[Math.min(at, bytes.length - 1)] = byte; // replace
    else if (choice === 3) bytes.splice(at, 0, 13); // a CR somewhere
    else if (choice === 4) bytes.length = at; // truncate
    else bytes.splice(at, 0, ...Array.from(String(rng.int(1e6)), (c) => c.charCodeAt(0)), 10); // insert a line
  }
  return Uint8Array.from(bytes);
}

test('random bytes: an error or a valid trace agreeing with the reference', () => {
  const rng = createRng('trace-fuzz-random');
  const outcomes = { valid: 0, error: 0 };
  for (let i = 0; i < 3000; i++) outcomes[check(randomBytes(rng, rng.int(64)), `random #${i}`)]++;
  // Fully random bytes are almost always rejected; sorted digits make valid ones too.
  for (let i = 0; i < 300; i++) {
    const values = Array.from({ length: 1 + rng.int(20) }, () => rng.int(1000)).sort((a, b) => a - b);
    outcomes[check(new TextEncoder().encode(values.join(rng.next() < 0.5 ? '\n' : '\r\n')), `sorted #${i}`)]++;
  }
  assert.ok(outcomes.valid > 250 && outcomes.error > 2000, JSON.stringify(outcomes));
});

test('mutations of a real trace: an error or a valid trace agreeing with the reference', () => {
  const rng = createRng('trace-fuzz-mutate');
  const outcomes = { valid: 0, error: 0 };
  check(REAL, 'unmutated');
  for (let i = 0; i < 1500; i++) outcomes[check(mutate(rng, REAL), `mutation #${i}`)]++;
  assert.ok(outcomes.valid > 100 && outcomes.error > 100, JSON.stringify(outcomes));
});

test('large random input is rejected or parsed in one linear pass', () => {
  const rng = createRng('trace-fuzz-large');
  for (let i = 0; i < 5; i++) check(randomBytes(rng, 200_000), `large #${i}`);
  check(new Uint8Array(100_000).fill(49), 'one long line of 1s');
  check(new Uint8Array(100_000).fill(10), 'only newlines');
});

test.run();
