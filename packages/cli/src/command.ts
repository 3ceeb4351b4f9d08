// A command: its words (`servers start`), its options for node:util parseArgs, its help, and what it does.
import type { ParseArgsConfig } from 'node:util';
import type { Spawnpoint } from '@spawnpoint/client';
import type { Output } from './output';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Context {
  output: Output;
  env: NodeJS.ProcessEnv;
  /** The client of the logged-in project (exit 3 when there is no login). */
  client(): Spawnpoint;
  /** The client with the operator's admin token. */
  admin(): Spawnpoint;
}

export interface Command {
  words: string[];
  /** `<ID>`, `<DIR|ZIP>`: shown in help; their count is checked. */
  args: string[];
  summary: string;
  options: Options;
  /** Lines after the options in --help. */
  notes?: string[];
  run(ctx: Context, args: string[], values: Record<string, string | boolean | string[] | undefined>): Promise<number | void>;
}
