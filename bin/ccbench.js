#!/usr/bin/env node
// Launcher of `ccbench` (see load-entry.js).
import './early-stop-signals.js';
import { loadEntry } from './load-entry.js';

const { main } = await loadEntry('ccbench', 'cli/ccbench.ts');
process.exitCode = await main(process.argv.slice(2));
