import { Subject } from 'rxjs';
import type { EventInput } from '../src/events/codecs.js';
import type { HookDecision } from '../src/output/lines.js';
import { hookPipeline, type PipelineDeps } from '../src/pipeline/pipeline.js';
import type { Registry } from '../src/registry/hook.js';

/** A long-lived pipeline fed one event at a time, the way a host (or `cosh-hooks run`) uses it. */
export interface PipelineDriver {
  /** Sends one event and resolves with its decision. Send the next one only after it resolved. */
  send(event: EventInput): Promise<HookDecision>;
  close(): void;
}

export const drivePipeline = (registry: Registry, deps: PipelineDeps): PipelineDriver => {
  const input = new Subject<EventInput>();
  const waiting: ((decision: HookDecision) => void)[] = [];
  const subscription = hookPipeline(
    registry,
    deps,
  )(input).decisions$.subscribe((decision) => waiting.shift()?.(decision));
  return {
    send: (event) =>
      new Promise((resolve) => {
        // Queued before `next`: an event without hooks is decided synchronously, inside `next`.
        waiting.push(resolve);
        input.next(event);
      }),
    close: () => {
      input.complete();
      subscription.unsubscribe();
    },
  };
};
