import { isLeft } from 'fp-ts/lib/Either.js';
import { MATCHED_EVENTS } from '../events/names.js';
import { commandHookOf } from '../registry/define.js';
import type { HookOrigin } from '../registry/hook.js';
import { err, ok } from '../result.js';
import { COSH_CORE_VERSION } from '../version.js';
import { noHooks } from './config-file.js';
import { ManifestV1, V1_EVENTS, LocalId, type V1Setting } from './manifest-v1-codecs.js';
import {
  formatPath,
  ignoredMatcher,
  issuesOf,
  type ConfigProblem,
  type Issue,
  type Segment,
} from './problems.js';
import { parseRequirement, parseVersion, satisfies } from './semver.js';
import { substituteCommand, type ExtensionVariables } from './substitute.js';
import type { DecodedManifest } from './decoded-manifest.js';

/** `${extensionPath}`, `${workspacePath}` and `${/}` in an `env` value: the variables cosh-core substitutes. */
const substituteV1 = (text: string, variables: ExtensionVariables): string =>
  text.replace(/\$\{(extensionPath|workspacePath|\/)\}/g, (_, name: string) =>
    name === 'extensionPath' || name === 'workspacePath' ? variables[name] : '/',
  );

const compatibilityIssues = (requirement: string): Issue[] => {
  const at = ['compatibility', 'cosh'];
  const parsed = parseRequirement(requirement);
  if (!parsed.ok) return [{ path: at, message: parsed.error }];
  const current = parseVersion(COSH_CORE_VERSION);
  return current !== undefined && satisfies(current, parsed.value)
    ? []
    : [
        {
          path: at,
          message: `the extension requires cosh ${requirement}; cosh-hooks follows cosh-core ${COSH_CORE_VERSION}`,
        },
      ];
};

/** The checks of one setting that span its keys (cosh-core `validate_setting`). */
const settingIssues = (setting: V1Setting, at: readonly Segment[]): Issue[] => {
  const issues: Issue[] = [];
  if (setting.sensitive === true && setting.default !== undefined)
    issues.push({ path: [...at, 'default'], message: 'a sensitive setting cannot declare a default' });
  if (setting.sensitive === true && setting.type !== 'string')
    issues.push({ path: [...at, 'type'], message: 'a sensitive setting must be of type "string"' });
  const value = setting.default;
  if (value !== undefined && value !== null) {
    const fits =
      setting.type === 'string'
        ? typeof value === 'string'
        : setting.type === 'boolean'
          ? typeof value === 'boolean'
          : typeof value === 'number' && Number.isSafeInteger(value);
    if (!fits) issues.push({ path: [...at, 'default'], message: `default is not of type "${setting.type}"` });
  }
  return issues;
};

/** Keys that must be unique in a list: the second one of each is an error naming the first. */
const duplicates = (
  entries: readonly { readonly key: string; readonly at: readonly Segment[] }[],
  what: string,
): Issue[] => {
  const first = new Map<string, readonly Segment[]>();
  const issues: Issue[] = [];
  for (const { key, at } of entries) {
    const seen = first.get(key);
    if (seen === undefined) first.set(key, at);
    else
      issues.push({
        path: at,
        message: `duplicate ${what} ${JSON.stringify(key)} (first at ${formatPath(seen)})`,
      });
  }
  return issues;
};

/**
 * A cosh-core `schemaVersion: 1` manifest (docs/extensions.md): strict keys, `name`, SemVer
 * `version`, `compatibility.cosh` matching cosh-core's version, hooks with required unique names,
 * timeouts in seconds 1..300 (converted to ms), POSIX `env` names, and only `${extensionPath}`,
 * `${workspacePath}` and `${/}` in commands. Any error means the extension does not load; all are
 * reported. A PreToolUse hook fails closed unless it says `fail_open: true`, as in cosh-core, where
 * a failure on the other events changes nothing. Pure: `locate` ties issues to the file's lines.
 */
export const decodeV1Manifest = (
  document: Readonly<Record<string, unknown>>,
  variables: ExtensionVariables,
  locate: (issue: Issue) => ConfigProblem,
  origin: (at: readonly Segment[]) => HookOrigin,
): DecodedManifest => {
  const decoded = ManifestV1.decode(document);
  if (isLeft(decoded)) return { ...err(issuesOf(decoded.left, [], 'json').map(locate)), warnings: [] };
  const manifest = decoded.right;
  const errors: Issue[] = [...compatibilityIssues(manifest.compatibility.cosh)];
  const warnings: Issue[] = [];
  const hooks = noHooks();
  const names: { key: string; at: Segment[] }[] = [];
  for (const event of V1_EVENTS) {
    (manifest.hooks?.[event] ?? []).forEach((group, g) => {
      if (group.matcher !== undefined && !MATCHED_EVENTS.includes(event))
        warnings.push(ignoredMatcher(event, ['hooks', event, g, 'matcher']));
      group.hooks.forEach((hook, h) => {
        const at: Segment[] = ['hooks', event, g, 'hooks', h];
        names.push({ key: hook.name, at: [...at, 'name'] });
        const env = Object.fromEntries(
          Object.entries(hook.env ?? {}).map(([name, value]) => [name, substituteV1(value, variables)]),
        );
        hooks[event].push(
          commandHookOf(
            {
              name: hook.name,
              command: substituteCommand(hook.command, variables),
              env,
              ...(hook.timeout !== undefined && { timeout: hook.timeout }),
              ...(hook.description !== undefined && { description: hook.description }),
              matcher: group.matcher,
              fail_closed: event === 'PreToolUse' && hook.fail_open !== true,
              origin: origin(at),
              extensionPath: variables.extensionPath,
              workspacePath: variables.workspacePath,
            },
            `extension:${manifest.name}`,
          ),
        );
      });
    });
  }
  errors.push(...duplicates(names, 'hook name'));
  for (const [id, server] of Object.entries(manifest.mcpServers ?? {})) {
    const at = ['mcpServers', id];
    const idCheck = LocalId('MCP server id').decode(id);
    if (isLeft(idCheck)) errors.push(...issuesOf(idCheck.left, at, 'json'));
    if (server.transport !== 'stdio')
      errors.push({ path: [...at, 'transport'], message: 'an MCP server must use the "stdio" transport' });
  }
  errors.push(
    ...duplicates(
      (manifest.contextFiles ?? []).map((context, index) => ({
        key: context.id,
        at: ['contextFiles', index, 'id'],
      })),
      'context id',
    ),
  );
  const settings = manifest.settings ?? [];
  errors.push(
    ...duplicates(
      settings.map((setting, index) => ({ key: setting.key, at: ['settings', index, 'key'] })),
      'setting key',
    ),
    ...settings.flatMap((setting, index) => settingIssues(setting, ['settings', index])),
  );
  if (errors.length > 0) return { ...err(errors.map(locate)), warnings: warnings.map(locate) };
  return {
    ...ok({ name: manifest.name, version: manifest.version, hooks }),
    warnings: warnings.map(locate),
  };
};
