/**
 * `cosh-hooks`: the engine, its inputs and outputs, and how hooks are configured. The operators the
 * engine is made of are in `cosh-hooks/operators`, what runs a hook (the executor port and the
 * real executor) in `cosh-hooks/executors`, the virtual-time testing kit in `cosh-hooks/testing`. Every name here is public API, locked by `test/package/api.test.ts`.
 */

// Driving the engine: reactive streams, a session per host loop, or promises. An input that is
// not a valid event is answered with a value (a `hook_error`), never thrown (docs/architecture.md).
export { hookPipeline, defaultDeps } from './pipeline/pipeline.js';
export type { PipelineDeps } from './pipeline/pipeline.js';
export { createSession, SessionClosedError } from './pipeline/session.js';
export type { Session } from './pipeline/session.js';
export { createDispatcher } from './pipeline/dispatch.js';
export type { Dispatcher } from './pipeline/dispatch.js';

// The audit stream (docs/audit.md): the records, notes from outside the engine, OpenTelemetry spans.
export type { AuditRecord, AuditConfigRecord } from './audit/records.js';
export { auditConfigRecord } from './audit/build.js';
export { traceAudit } from './audit/trace.js';

// Input: events (docs/protocol.md), as typed values or as JSONL lines.
export type { EventInput, HookEvent } from './events/codecs.js';
export { JsonLine } from './events/input.js';

// Output: the lines the engine writes (docs/protocol.md).
export { encodeLine, isDecision } from './output/lines.js';
export type { HookDecision, HookError, HookNotification, OutputLine } from './output/lines.js';

// Hooks: from configuration files, or defined in code.
export { loadHooks } from './config/load.js';
export { watchHooks } from './config/watch.js';
export { formatProblem } from './config/problems.js';
export { defineHooks, HookDefinitionError } from './registry/define.js';
export type { HookDefinitions } from './registry/define.js';
export { registryOf, concatRegistries } from './registry/chain.js';
export type { Hook, Registry } from './registry/hook.js';

// Secret redaction (docs/protocol.md, "Secrets"): the rules the engine applies, for a host's own logs.
export { redactText, redactJson } from './protocol/redact/index.js';
