#!/usr/bin/env node
// Launcher: runs the TypeScript CLI of `salsify` through tsx's loader.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/salsify/cli.ts');
process.exitCode = await main(process.argv.slice(2));
