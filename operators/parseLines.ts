import { map, type OperatorFunction } from 'rxjs';
import { readInput, type ParsedInput } from '../src/events/input.js';

/**
 * The engine's edge: each `JsonLine` is parsed into the value it holds, and any other item is an
 * event value as the host gave it. Emits one `ParsedInput` per item, in the same frame: a `Result`
 * holding the value, or why a line holds none (`not JSON: …`, or the reader's `problem`: not
 * UTF-8, too long), with the line number beside it for items that came as text. Never errors on
 * bad input; an error of the source is passed on, and unsubscribing unsubscribes from the source.
 * Stateless, so re-subscribing starts nothing over.
 *
 * ```
 * input:  --l--x--v--|      l = JsonLine(1, '{…}'), x = JsonLine(2, 'nope'), v = an event object
 * output: --L--X--V--|      L = {ok:true, value:{…}, line:1}, X = {ok:false, error:'not JSON: …', line:2},
 *                           V = {ok:true, value:v}
 * ```
 *
 * Example: `lines$.pipe(parseLines(), admitEvents({ now: () => new Date(), cwd: () => process.cwd() }))`
 */
export const parseLines = (): OperatorFunction<unknown, ParsedInput> => map((item) => readInput(item));
