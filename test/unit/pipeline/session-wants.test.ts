import { BehaviorSubject, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { defaultDeps } from '../../../src/pipeline/pipeline.js';
import { createSession } from '../../../src/pipeline/session.js';
import { defineHooks } from '../../../src/registry/define.js';
import type { Registry } from '../../../src/registry/hook.js';

const none = () => undefined;
const guard = defineHooks({ PreToolUse: [{ name: 'guard', matcher: 'shell', run: none }] });

describe('Session.wants: whether deciding an event could do anything', () => {
  it('is what the registry says: an enabled hook or observer that can match the event', () => {
    const session = createSession(guard, defaultDeps());
    expect(session.wants('PreToolUse', 'shell')).toBe(true);
    expect(session.wants('PreToolUse', 'read')).toBe(false);
    expect(session.wants('BeforeModel')).toBe(false);
    session.close();
  });

  it('follows a registry$: what it wants changes with the registry current now', () => {
    const registry$ = new BehaviorSubject<Registry>(guard);
    const session = createSession(registry$, defaultDeps());
    expect(session.wants('BeforeModel')).toBe(false);
    registry$.next(defineHooks({ BeforeModel: [{ name: 'look', run: none }] }));
    expect(session.wants('BeforeModel')).toBe(true);
    expect(session.wants('PreToolUse', 'shell')).toBe(false);
    session.close();
  });

  it('wants every event while someone listens to the audit: each is recorded', () => {
    const session = createSession(guard, defaultDeps());
    const listening = session.audit$.subscribe();
    expect(session.wants('BeforeModel')).toBe(true);
    listening.unsubscribe();
    expect(session.wants('BeforeModel')).toBe(false);
    session.close();
  });

  it('wants every event before a registry$ has given a registry, and once closed: the host must hear why', () => {
    const registry$ = new Subject<Registry>();
    const session = createSession(registry$, defaultDeps());
    expect(session.wants('BeforeModel')).toBe(true);
    registry$.next(guard);
    expect(session.wants('BeforeModel')).toBe(false);
    session.close();
    expect(session.wants('BeforeModel')).toBe(true);
  });
});
