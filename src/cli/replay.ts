import { existsSync, writeFileSync } from 'node:fs';
import { from } from 'rxjs';
import { readInputText } from '../config/files.js';
import { hookPipeline } from '../pipeline/pipeline.js';
import { EXIT, engineDeps, loadForCommand, reportProblems } from './commands.js';
import type { ConfigFlags, ExecutionFlags } from './options.js';
import { printableLine } from './format.js';
import { answerOf, answersText, diffAnswers, readAnswers, type Answer } from './replay-compare.js';
import { replayItemsOf } from './replay-input.js';
import { onStopSignals } from './terminal.js';

/** The largest recording or expectation read: far more than a day of one agent's events. */
const MAX_REPLAY_BYTES = 256 * 1024 * 1024;

export interface ReplayFlags extends ConfigFlags, ExecutionFlags {
  readonly expect?: string;
  readonly update?: boolean;
}

const say = (text: string): void => {
  process.stderr.write(`${text}\n`);
};

const fail = (message: string): number => {
  say(`cosh-hooks replay: ${printableLine(message)}`);
  return EXIT.failed;
};

/**
 * `replay`: runs recorded events through the configuration, as `run` would, and compares the
 * decisions with an expectation (docs/cli.md). Without `--expect` it prints the decisions; with
 * `--update` it writes them as the new expectation. Exit 0 when they match, 1 on a difference (the
 * diff on stderr) or an unreadable file, 2 when the configuration is invalid.
 */
export const replayCommand = async (events: string, flags: ReplayFlags): Promise<number> => {
  if (flags.update === true && flags.expect === undefined)
    return fail('--update needs --expect FILE to write');
  const recorded = readInputText(events === '-' ? 0 : events, MAX_REPLAY_BYTES);
  if (!recorded.ok) return fail(`cannot read ${events}: ${recorded.error}`);
  let expected: Answer[] | undefined;
  if (flags.expect !== undefined && flags.update !== true) {
    const text = readInputText(flags.expect, MAX_REPLAY_BYTES);
    if (!text.ok)
      return fail(
        existsSync(flags.expect)
          ? `cannot read ${flags.expect}: ${text.error}`
          : `${flags.expect} does not exist: record it first with --update (cosh-hooks replay ${events} --expect ${flags.expect} --update)`,
      );
    const answers = readAnswers(text.value, flags.expect);
    if (!answers.ok) return fail(answers.error);
    expected = answers.value;
  }
  const loaded = loadForCommand(flags);
  reportProblems(loaded);
  if (!loaded.ok) return EXIT.invalidConfig;

  const { output$ } = hookPipeline(loaded.registry, engineDeps(flags), {
    ...(loaded.stopLoopLimit !== undefined && { stopLoopLimit: loaded.stopLoopLimit }),
  })(from(replayItemsOf(recorded.value)));
  // A signal unsubscribes the run: running hooks are cancelled (their groups killed), as in `run`.
  const outcome = await new Promise<{ readonly answers: Answer[] } | { readonly signal: number }>(
    (resolve) => {
      const answers: Answer[] = [];
      const subscription = output$.subscribe({
        next: (line) => {
          const answer = answerOf(line);
          if (answer !== undefined) answers.push(answer);
        },
        complete: () => resolve({ answers }),
        // The engine turns every hook and input problem into a value; an error here is a bug.
        error: (error: unknown) =>
          resolve({ answers: [...answers, { type: 'hook_error', message: String(error) }] }),
      });
      onStopSignals((status) => {
        subscription.unsubscribe();
        resolve({ signal: status });
      });
    },
  );
  if ('signal' in outcome) return outcome.signal;
  const actual = outcome.answers;

  if (flags.update === true && flags.expect !== undefined) {
    try {
      writeFileSync(flags.expect, answersText(actual));
    } catch (error) {
      return fail(`cannot write ${flags.expect}: ${(error as Error).message}`);
    }
    say(`cosh-hooks replay: wrote ${actual.length} decisions to ${printableLine(flags.expect)}`);
    return EXIT.ok;
  }
  if (expected === undefined) {
    process.stdout.write(answersText(actual));
    return EXIT.ok;
  }
  const diff = diffAnswers(expected, actual);
  if (diff.length === 0) {
    say(`cosh-hooks replay: ${actual.length} decisions match ${printableLine(flags.expect ?? '')}`);
    return EXIT.ok;
  }
  say(diff.map(printableLine).join('\n'));
  say(
    `cosh-hooks replay: the decisions differ from ${printableLine(flags.expect ?? '')} (expected ${expected.length}, got ${actual.length})`,
  );
  return EXIT.failed;
};
