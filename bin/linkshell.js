#!/usr/bin/env node
// Launcher: runs the TypeScript CLI through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/linkshell.ts');
