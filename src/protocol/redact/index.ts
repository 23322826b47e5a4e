/*
 * Secret redaction (docs/protocol.md, "Secrets"): which names are secret (`keys`), secret-shaped
 * text (`text`, which imports `keys`), and the walk over JSON values and hook results (`tree`,
 * which imports both). Imports run one way: keys ← text ← tree.
 */
export { isSecretKey, isSecretName } from './keys.js';
export { isOneToken, REDACTED, REDACTED_PRIVATE_KEY, redactCutTail, redactText, TEXT_RULES } from './text.js';
export type { TextTarget } from './text.js';
export {
  MAX_REDACTION_DEPTH,
  redactedEvent,
  redactHookInput,
  redactJson,
  redactOutput,
  redactResult,
} from './tree.js';
