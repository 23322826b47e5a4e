export * from './decision.js';
export * from './output.js';
export * from './decode-output.js';
export * from './result.js';
export * from './effective.js';
export * from './merge.js';
export * from './aggregate.js';
export { REDACTED, isSecretKey, redactText, redactJson, redactOutput, redactResult } from './redact/index.js';
export { toolRewriteProblem } from './tool-declarations.js';
