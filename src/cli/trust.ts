import { formatProblem } from '../config/problems.js';
import {
  canTrust,
  planTrust,
  recordTrust,
  revokeTrust,
  type TrustCandidate,
  type TrustPlan,
} from '../config/trust-workspace.js';
import { kindOf } from '../config/trust.js';
import { formatProblemLines, printableJson, printableLine } from './format.js';
import { toLoadOptions, type ConfigFlags } from './options.js';
import { palette, useColor } from './style.js';

export interface TrustFlags extends ConfigFlags {
  readonly revoke?: boolean;
  readonly dryRun?: boolean;
  readonly json?: boolean;
}

const where = (hook: TrustCandidate): string =>
  hook.line === undefined ? hook.file : `${hook.file}:${hook.line}`;

/** What will be trusted: each hook's command and every file it runs, with its digest. */
const formatPlan = (plan: TrustPlan, color: boolean): string[] => {
  const p = palette(color);
  const out = [`${p.bold('workspace')}  ${printableLine(plan.workspace)}`];
  out.push(`${p.bold('config')}     ${printableLine(plan.configFile)}`);
  const settings = Object.entries(plan.settings);
  if (settings.length > 0)
    out.push(
      `${p.bold('settings')}   ${settings.map(([key, value]) => `${key} = ${String(value)}`).join(', ')}  ${p.dim("(a project may only tighten the user's)")}`,
    );
  for (const hook of plan.hooks) {
    out.push('', `${p.bold(hook.event)} ${printableLine(hook.name)}  ${p.dim(printableLine(where(hook)))}`);
    out.push(`  $ ${printableLine(hook.command)}`);
    out.push(`  definition ${hook.definition}`);
    if (hook.interpreter !== undefined) out.push(`  run by ${printableLine(hook.interpreter)}`);
    for (const script of hook.scripts) {
      const notes = [
        ...(script.real !== undefined ? [`a link to ${script.real}`] : []),
        ...(script.sha256 === 'missing' ? ['missing: trusted as absent'] : []),
        ...(script.unverifiable !== undefined
          ? [`cannot be verified (${script.unverifiable}): not trusted`]
          : []),
      ];
      out.push(
        `  ${kindOf(script.path)} ${printableLine(script.path)}  ${script.sha256}${notes.length > 0 ? p.yellow(`  (${notes.join('; ')})`) : ''}`,
      );
    }
    if (hook.refused !== undefined) out.push(p.yellow(`  refused: ${printableLine(hook.refused)}`));
    else if (hook.scripts.length === 0) out.push(p.dim('  script: none (a builtin that runs no file)'));
  }
  return out;
};

/**
 * `trust`: shows the project hooks of a workspace with what they run, then records their digests
 * in the trust store (`--dry-run`: shows only). `--revoke` forgets the workspace. Exit 0 when
 * recorded or revoked; 1 when there is nothing to trust, some hook cannot be trusted, or the
 * store cannot be written; 2 when the project config is invalid.
 */
export const trustCommand = (flags: TrustFlags): number => {
  const color = useColor(process.stdout.isTTY, process.env);
  const options = toLoadOptions(flags, process.cwd());
  if (flags.revoke === true) {
    try {
      const { workspace, removed } = revokeTrust(options);
      process.stdout.write(
        removed
          ? `revoked trust in ${printableLine(workspace)}\n`
          : `${printableLine(workspace)} was not trusted\n`,
      );
      return 0;
    } catch (error) {
      process.stderr.write(
        `cosh-hooks: cannot write the trust store: ${printableLine((error as Error).message)}\n`,
      );
      return 1;
    }
  }
  const plan = planTrust(options);
  const problems = formatProblemLines(
    plan.errors.map(formatProblem),
    plan.warnings.map(formatProblem),
    false,
  );
  if (problems.length > 0) process.stderr.write(`${problems.join('\n')}\n`);
  if (plan.errors.length > 0) return 2;
  if (
    plan.project?.state !== 'read' ||
    (plan.hooks.length === 0 && Object.keys(plan.settings).length === 0)
  ) {
    const why =
      plan.project?.state === 'ignored'
        ? `the project layer is not read: ${plan.project.reason ?? ''}`
        : `no project hooks or settings in ${plan.configFile}`;
    process.stderr.write(`cosh-hooks: nothing to trust: ${printableLine(why)}\n`);
    return 1;
  }
  const refused = plan.hooks.filter((hook) => !canTrust(hook));
  let recorded: readonly TrustCandidate[] = [];
  if (flags.dryRun !== true) {
    try {
      recorded = recordTrust(plan);
    } catch (error) {
      process.stderr.write(
        `cosh-hooks: cannot write the trust store: ${printableLine((error as Error).message)}\n`,
      );
      return 1;
    }
  }
  if (flags.json === true) {
    const report = {
      ...plan,
      recorded: recorded.map(({ event, name }) => ({ event, name })),
      dry_run: flags.dryRun === true,
    };
    process.stdout.write(`${printableJson(JSON.stringify(report, null, 2))}\n`);
  } else {
    const lines = formatPlan(plan, color);
    lines.push(
      '',
      flags.dryRun === true
        ? `dry run: nothing recorded (${plan.hooks.length - refused.length} hook(s) would be trusted)`
        : `trusted ${recorded.length} hook(s) of ${printableLine(plan.workspace)} in ${printableLine(plan.storeFile)}`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  for (const hook of refused)
    process.stderr.write(
      `cosh-hooks: ${printableLine(where(hook))}: ${hook.event} ${printableLine(hook.name)} not trusted: ${printableLine(hook.refused ?? 'a script cannot be verified')}\n`,
    );
  return refused.length > 0 ? 1 : 0;
};
