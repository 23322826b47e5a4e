import { EMPTY, NEVER, of, type Observable, type OperatorFunction } from 'rxjs';
import { map } from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import { withLatestRegistry } from '../../../operators/index.js';
import { registryOf, type Registry } from '../../../src/registry/index.js';
import { commandHook, createTestScheduler } from '../../../src/testing/index.js';

/** Registries told apart by the name of their one PreToolUse hook. */
const registryNamed = (name: string): Registry =>
  registryOf((event) => (event === 'PreToolUse' ? [commandHook(name)] : []));
const R = { a: registryNamed('a'), b: registryNamed('b'), c: registryNamed('c') };
const brief = ([value, registry]: readonly [string, Registry]) =>
  `${value}${registry.PreToolUse[0]?.name ?? '?'}`;

describe('withLatestRegistry', () => {
  it('pairs each value with the registry current when it arrives; a later registry applies to later values only', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const registry$ = hot('a------b-----c--', R);
      const source = hot('  --x--y----z-----|');
      expectObservable(source.pipe(withLatestRegistry(registry$), map(brief))).toBe('--X--Y----Z-----|', {
        X: 'xa',
        Y: 'ya',
        Z: 'zb',
      });
      expectSubscriptions(source.subscriptions).toBe('^---------------!');
      expectSubscriptions(registry$.subscriptions).toBe('^---------------!');
    });
  });

  it('the marble of its doc comment', () => {
    createTestScheduler().run(({ hot, expectObservable }) => {
      const registry$ = hot('---a------b-------', R);
      const source = hot('   -x---y------z--|');
      expectObservable(source.pipe(withLatestRegistry(registry$), map(brief))).toBe('---X-Y------Z--|', {
        X: 'xa',
        Y: 'ya',
        Z: 'zb',
      });
    });
  });

  it('values before the first registry wait, in order, and nothing is lost', () => {
    createTestScheduler().run(({ hot, expectObservable }) => {
      const registry$ = hot('-----a--b--', R);
      const source = hot('  -x-y-----z|');
      expectObservable(source.pipe(withLatestRegistry(registry$), map(brief))).toBe('-----(XY)Z|', {
        X: 'xa',
        Y: 'ya',
        Z: 'zb',
      });
    });
  });

  it('a completed registry$ keeps its last registry', () => {
    createTestScheduler().run(({ cold, hot, expectObservable }) => {
      const registry$ = cold('a|', R);
      const source = hot('  ---x--y|');
      expectObservable(source.pipe(withLatestRegistry(registry$), map(brief))).toBe('---X--Y|', {
        X: 'xa',
        Y: 'ya',
      });
    });
  });

  it('an error of registry$ after a registry is ignored: the last one stays', () => {
    createTestScheduler().run(({ hot, expectObservable }) => {
      const registry$ = hot('a--#', R);
      const source = hot('  -x---y|');
      expectObservable(source.pipe(withLatestRegistry(registry$), map(brief))).toBe('-X---Y|', {
        X: 'xa',
        Y: 'ya',
      });
    });
  });

  it('an error of registry$ before any registry errors the output; so does the source erroring', () => {
    createTestScheduler().run(({ hot, expectObservable }) => {
      expectObservable(hot('-x--|').pipe(withLatestRegistry(hot('--#', R)), map(brief))).toBe('--#');
      expectObservable(hot('-x-#').pipe(withLatestRegistry(hot('a---', R)), map(brief))).toBe('-X-#', {
        X: 'xa',
      });
    });
  });

  it('a registry$ that completes without a registry, with a value waiting, errors', () => {
    createTestScheduler().run(({ hot, expectObservable }) => {
      const out = hot('-x--|').pipe(withLatestRegistry(EMPTY), map(brief));
      expectObservable(out).toBe('-#', undefined, new Error('registry$ completed without a registry'));
    });
  });

  it('unsubscribing the output unsubscribes registry$ and the source', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const registry$ = hot('a-----b--', R);
      const source = hot('  -x--y---z-|');
      const unsub = '       -----!';
      expectObservable(source.pipe(withLatestRegistry(registry$), map(brief)), unsub).toBe('-X--Y', {
        X: 'xa',
        Y: 'ya',
      });
      expectSubscriptions(registry$.subscriptions).toBe('^----!');
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('types: values keep their type, paired with a Registry', () => {
    expectTypeOf(withLatestRegistry<number>(NEVER)).toEqualTypeOf<
      OperatorFunction<number, readonly [number, Registry]>
    >();
    expectTypeOf(of('x').pipe(withLatestRegistry(of(R.a)))).toEqualTypeOf<
      Observable<readonly [string, Registry]>
    >();
  });
});
