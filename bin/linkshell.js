#!/usr/bin/env node
// Launcher of `linkshell`: its entry module runs the command when loaded (see load-entry.js).
import { loadEntry } from './load-entry.js';

await loadEntry('linkshell', 'cli/linkshell.ts');
