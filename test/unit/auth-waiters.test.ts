// Unit cases for require_auth waits (issue 19): which verdicts answer, how a message still being
// checked is held and offered again once its check ends, and the summary verdict rules.
import test from 'ava';
import { WaiterRegistry, type Waiter } from '../../src/actors/waiters.js';
import type { MessageRecord } from '../../src/contract/model.js';
import { answersAuthWait, pendingAuthentication, unverified, verdictOf, type Authentication } from '../../src/contract/authentication.js';

const withVerdict = (summary: Authentication['summary']): Authentication => ({ ...unverified(), summary });

function message(id: string, authentication: Authentication): MessageRecord {
  return {
    id, inbox: 'a@x.test', from: 'f@x.test', to: [], subject: '', date: '', text: null, html: null, headers: {},
    attachments: [], otp: '123456', verification_link: null, read: false, size: 1, authentication,
  };
}

/** `since`: the wait's cursor, the position it waits from (a message whose check settles later answers only if newer). */
function waiter(log: string[], name: string, requireAuth: boolean, since = 'msg_0'): Waiter {
  return {
    address: 'a@x.test', match: 'any', since, deadline: Date.now() + 60_000, requireAuth,
    settle: (outcome) => log.push(`${name}:${typeof outcome === 'object' && !(outcome instanceof Error) ? outcome.id : String(outcome)}`),
  };
}

test('auth waits - only a finished pass or none answers a require_auth wait', (t) => {
  t.true(answersAuthWait(withVerdict('pass')));
  t.true(answersAuthWait(withVerdict('none')));
  t.false(answersAuthWait(withVerdict('fail')));
  t.false(answersAuthWait(withVerdict('temperror')));
  t.false(answersAuthWait(pendingAuthentication()));
  t.false(answersAuthWait(undefined), 'a message never checked is not trusted');
});

test('auth waits - a pending message is held for require_auth waits and offered again once it passes', (t) => {
  const reg = new WaiterRegistry();
  const log: string[] = [];
  reg.park(waiter(log, 'strict', true));
  reg.park(waiter(log, 'open', false));
  reg.deliver('a@x.test', message('msg_2', pendingAuthentication()));
  t.deepEqual(log, ['open:msg_2'], 'an open wait answers at once; the strict one holds');
  reg.park(waiter(log, 'late-open', false));
  reg.deliver('a@x.test', message('msg_2', withVerdict('pass')), true);
  t.deepEqual(log, ['open:msg_2', 'strict:msg_2'], 'the settled check reaches only require_auth waits');
  reg.drain();
});

test('auth waits - a spoofed message never answers; a settled one older than the wait does not either', (t) => {
  const reg = new WaiterRegistry();
  const log: string[] = [];
  reg.park(waiter(log, 'strict', true, 'msg_5'));
  reg.deliver('a@x.test', message('msg_6', withVerdict('fail')));
  reg.deliver('a@x.test', message('msg_4', withVerdict('pass')), true);
  t.deepEqual(log, []);
  reg.deliver('a@x.test', message('msg_7', withVerdict('pass')));
  t.deepEqual(log, ['strict:msg_7']);
  reg.drain();
});

test('auth waits - the verdict follows DMARC, and without a record the aligned identities', (t) => {
  const base = { spf: 'none', dkim: [], dmarc: 'none', dmarc_policy: null, arc: null, aligned: false, from_domain: 'x.test' };
  t.is(verdictOf({ ...base, dmarc: 'pass' }), 'pass');
  t.is(verdictOf({ ...base, dmarc: 'fail', spf: 'pass' }), 'fail');
  t.is(verdictOf({ ...base, dmarc: 'temperror' }), 'temperror');
  t.is(verdictOf({ ...base, spf: 'pass', aligned: true }), 'pass');
  t.is(verdictOf({ ...base, spf: 'pass' }), 'none', 'an SPF pass for another domain says nothing about From');
  t.is(verdictOf({ ...base, spf: 'temperror' }), 'temperror');
  t.is(verdictOf({ ...base, dkim: [{ domain: 'x.test', selector: 's', result: 'fail' }] }), 'fail');
  t.is(verdictOf(base), 'none');
});
