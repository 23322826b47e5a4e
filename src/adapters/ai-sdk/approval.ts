import type { ModelMessage, ToolApprovalConfiguration, ToolApprovalStatus, ToolSet } from 'ai';
import type { ToolGate } from '../../host/gates.js';

/** The tool call the SDK asks about (`toolApproval`'s argument, as far as the adapter reads it). */
export interface ApprovalRequest {
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown };
  readonly tools?: ToolSet | undefined;
  readonly toolsContext?: unknown;
  readonly runtimeContext?: unknown;
  readonly messages?: ModelMessage[];
}

/** The host's own approval rule, as `generateText` takes it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any tool set and context
export type HostApproval = ToolApprovalConfiguration<any, any>;

type Status = Exclude<ToolApprovalStatus, undefined | string>;
const RANK: Readonly<Record<Status['type'], number>> = {
  'not-applicable': 0,
  approved: 1,
  'user-approval': 2,
  denied: 3,
};

const normalize = (status: ToolApprovalStatus): Status =>
  status === undefined
    ? { type: 'not-applicable' }
    : typeof status === 'string'
      ? ({ type: status } as Status)
      : status;

/** The stricter of two statuses: denied > user-approval > approved > not-applicable. */
export const stricter = (a: ToolApprovalStatus, b: ToolApprovalStatus): Status => {
  const [x, y] = [normalize(a), normalize(b)];
  return RANK[y.type] > RANK[x.type] ? y : x;
};

/** A PreToolUse gate as an SDK approval status. */
export const approvalOf = (gate: ToolGate): Status => {
  switch (gate.action) {
    case 'deny':
      return { type: 'denied', reason: gate.reason };
    case 'ask':
      return { type: 'user-approval', reason: gate.reason };
    default:
      return gate.decision?.decision === 'allow'
        ? {
            type: 'approved',
            ...(gate.decision.reason === undefined ? {} : { reason: gate.decision.reason }),
          }
        : { type: 'not-applicable' };
  }
};

type ToolOf = ToolSet[string];

/** What the host's own rule says (its `toolApproval`, else the tool's `needsApproval`), as the SDK reads it. */
export const hostStatus = async (
  host: HostApproval | undefined,
  request: ApprovalRequest,
): Promise<ToolApprovalStatus> => {
  const { toolCall } = request;
  if (typeof host === 'function')
    return (host as (request: ApprovalRequest) => Promise<ToolApprovalStatus>)(request);
  const own = (host as Record<string, unknown> | undefined)?.[toolCall.toolName];
  const context = (request.toolsContext as Record<string, unknown> | undefined)?.[toolCall.toolName];
  const options = { toolCallId: toolCall.toolCallId, messages: request.messages ?? [] };
  if (own !== undefined && own !== null) {
    return typeof own === 'function'
      ? (own as (input: unknown, options: unknown) => Promise<ToolApprovalStatus>)(toolCall.input, {
          ...options,
          toolContext: context,
          runtimeContext: request.runtimeContext,
        })
      : (own as ToolApprovalStatus);
  }
  const tool = request.tools?.[toolCall.toolName] as ToolOf | undefined;
  const needs = tool?.needsApproval;
  if (needs === undefined || needs === null) return 'not-applicable';
  const asks =
    typeof needs === 'function'
      ? await (needs as (input: unknown, options: unknown) => Promise<boolean>)(toolCall.input, {
          ...options,
          context,
        })
      : needs;
  return asks ? 'user-approval' : 'not-applicable';
};
