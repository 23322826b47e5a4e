/**
 * `cosh-hooks`: the engine, its inputs and outputs, and how hooks are configured. The operators the
 * engine is made of are in `cosh-hooks/operators`, the virtual-time testing kit in
 * `cosh-hooks/testing`. Every name here is public API, locked by `test/package/api.test.ts`.
 */

// Driving the engine: reactive streams, a session per host loop, or promises.
export { hookPipeline, defaultDeps } from './pipeline/pipeline.js';
export type { PipelineDeps, PipelineOptions, HookStreams } from './pipeline/pipeline.js';
export { createSession, SessionClosedError } from './pipeline/session.js';
export type { Session, SessionOptions } from './pipeline/session.js';
export { createDispatcher, InvalidEventError } from './pipeline/dispatch.js';
export type { Dispatcher, DispatchResult } from './pipeline/dispatch.js';

// The audit stream (docs/audit.md): the records, notes from outside the engine, OpenTelemetry spans.
export type { AuditRecord, AuditConfigRecord } from './audit/records.js';
export { auditConfigRecord } from './audit/build.js';
export type { AuditConfigNote } from './audit/build.js';
export { traceAudit } from './audit/trace.js';
export type { TraceAuditOptions } from './audit/trace.js';

// Input: events (SPEC §1), as values or as JSONL lines.
export { EVENT_NAMES } from './events/names.js';
export type { EventName, Decision } from './events/names.js';
export type { HookEvent } from './events/codecs.js';
export { JsonLine } from './events/input.js';

// Everything that can fail without throwing answers in one shape.
export type { Result } from './result.js';

// Output: the lines the engine writes (SPEC §5).
export { encodeLine, isDecision, isHookError, isNotification } from './output/lines.js';
export type { HookDecision, HookError, HookNotification, OutputLine } from './output/lines.js';
export type { HookReport } from './protocol/aggregate.js';
export type { HookOutcome } from './protocol/result.js';

// Hooks: from configuration files, or defined in code.
export { loadHooks, DEFAULT_SYSTEM_EXTENSIONS_DIR } from './config/load.js';
export type { LoadOptions, LoadResult, LoadedSources } from './config/load.js';
export { watchHooks } from './config/watch.js';
export type { WatchOptions } from './config/watch.js';
export type { UntrustedHook } from './config/layers.js';
export type { ForeignSettings } from './config/foreign-load.js';
export { formatProblem } from './config/problems.js';
export type { ConfigProblem } from './config/problems.js';
export { defineHooks, HookDefinitionError } from './registry/define.js';
export type { HookDefinition, HookDefinitions } from './registry/define.js';
export { registryOf, concatRegistries } from './registry/chain.js';
export { DEFAULT_TIMEOUT_MS } from './registry/hook.js';
export type { ToolMatcher } from './registry/matcher.js';
export { DIALECTS } from './registry/dialect.js';
export type { Dialect } from './registry/dialect.js';
export type {
  CommandHook,
  FunctionHook,
  Hook,
  HookAnswer,
  HookBase,
  HookDecisionSpelling,
  HookFunction,
  HookFunctionResult,
  HookFunctionValue,
  Registry,
} from './registry/hook.js';

// Running a hook: the executor port (every hook kind), its composition by kind, the real adapter.
export { processExecutor, execaExecutor } from './exec/process-executor.js';
export type { ProcessExecutorOptions, ExecaExecutorOptions } from './exec/process-executor.js';
export { hookExecutor } from './exec/hook-executor.js';
export { resultOnly } from './exec/port.js';
export type {
  CommandExecutor,
  ExecutorRun,
  FunctionExecutor,
  HookEmission,
  HookExecutor,
  HookProgress,
  RunScopedExecutor,
} from './exec/port.js';
export type { PersistentHookOptions } from './exec/persistent/persistent.js';
export type { FailureKind, HookFailure, HookResult, HookSuccess } from './protocol/result.js';
export type { HookOutput } from './protocol/output.js';

// Secret redaction (SPEC §4.7): the rules the engine applies, for a host's own logs.
export { redactText, redactJson } from './protocol/redact/index.js';
