import test from 'ava';
import { Cancellation } from '../../src/util/cancel.js';

test('cancellation - abort tells each listener still registered, once, functions and handleEvent objects alike', (t) => {
  const c = new Cancellation();
  const heard: string[] = [];
  const a = () => heard.push('a');
  const b = { handleEvent: () => heard.push('b') };
  const gone = () => heard.push('gone');
  c.addEventListener('abort', a);
  c.addEventListener('abort', gone);
  c.addEventListener('abort', b);
  c.removeEventListener('abort', gone);
  c.removeEventListener('abort', () => heard.push('never added'));
  c.abort();
  c.abort();
  t.deepEqual(heard, ['a', 'b']);
  t.true(c.aborted);
  c.addEventListener('abort', () => heard.push('late'));
  t.deepEqual(heard, ['a', 'b', 'late'], 'a listener added after the abort hears it at once');
});

test('cancellation - the only listener removed leaves nothing to call', (t) => {
  const c = new Cancellation();
  let calls = 0;
  const only = () => calls++;
  c.addEventListener('abort', only);
  c.removeEventListener('abort', only);
  c.abort();
  t.is(calls, 0);
});
