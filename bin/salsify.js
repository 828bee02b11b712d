#!/usr/bin/env node
// Launcher of `salsify` (see load-entry.js).
import './early-stop-signals.js';
import { loadEntry } from './load-entry.js';

const { main } = await loadEntry('salsify', 'cli/salsify.ts');
process.exitCode = await main(process.argv.slice(2));
