import { inspect } from 'node:util';

/** Runs a CLI command: its failure printed whole (whatever was thrown), exit code 1. */
export function runCli(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : inspect(error)}\n`);
    process.exit(1);
  });
}
