// The `linkshell` command: dispatches to its subcommands; any other
// invocation is the real-time emulated link (src/cli/linkshell-run.ts).

import { runReplay } from './replay-command.ts';
import { runStats } from './stats-command.ts';
import { asksForVersion } from '../common/command-line.ts';
import { runCommand } from '../common/errors.ts';
import { exitOnStandardStreamErrors } from '../common/standard-streams.ts';

export async function main(argv: string[]): Promise<number> {
  if (asksForVersion(argv)) return (await import('./version.ts')).printVersion('linkshell');
  const [first, ...rest] = argv;
  exitOnStandardStreamErrors(['replay', 'stats', 'graph', 'gen-trace'].includes(first ?? '') ? `linkshell ${first}` : 'linkshell');
  switch (first) {
    case 'replay':
      return runCommand('linkshell replay', () => runReplay(rest));
    case 'stats':
      return runCommand('linkshell stats', () => runStats(rest));
    case 'graph': {
      const { runGraph } = await import('./graph-command.ts');
      return runCommand('linkshell graph', () => runGraph(rest));
    }
    case 'gen-trace': {
      const { runTraceGenCli } = await import('./gen-trace-command.ts');
      return runTraceGenCli(rest);
    }
    default: {
      const { runLinkshell } = await import('./linkshell-run.ts');
      return runLinkshell(argv);
    }
  }
}

process.exitCode = await main(process.argv.slice(2));
