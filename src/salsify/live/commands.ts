// The live commands of `salsify`: send and receive over real UDP, analyze the records.
import { runCommand } from '../../common/usage-error.ts';
import { runAnalyze } from './analyze.ts';
import { runReceive } from './receive.ts';
import { runSend } from './send.ts';

export const LIVE_COMMANDS = ['send', 'receive', 'analyze'] as const;
export type LiveCommand = (typeof LIVE_COMMANDS)[number];

export function isLiveCommand(name: string | undefined): name is LiveCommand {
  return (LIVE_COMMANDS as readonly (string | undefined)[]).includes(name);
}

/** Runs `salsify COMMAND ARGS...`; returns the exit status (2 for usage errors, printed as one line). */
export function runLiveCommand(command: LiveCommand, argv: string[]): Promise<number> {
  const body = command === 'send' ? runSend : command === 'receive' ? runReceive : runAnalyze;
  return runCommand(`salsify ${command}`, () => body(argv));
}
