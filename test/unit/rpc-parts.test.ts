// Unit: how a body larger than one stream message is cut, packed, sent and joined (src/rpc/proto.ts).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { until } from '../helpers/wait.js';
import { Assembler, CHUNK_BYTES, codec, packBody, packSegments, partsOf, pushParts } from '../../src/rpc/proto.js';

const joined = (parts: Uint8Array[]) => Buffer.concat(parts);

test('parts - at most one chunk each, views of one segment, a copy only where a part spans two', (t) => {
  const big = randomBytes(2 * CHUNK_BYTES + 10);
  const parts = partsOf([big]);
  t.deepEqual(parts.map((p) => p.length), [CHUNK_BYTES, CHUNK_BYTES, 10]);
  t.is(parts[1]!.buffer, big.buffer, 'a view, not a copy');
  const head = randomBytes(100);
  const spanning = partsOf([head, big]);
  t.deepEqual(spanning.map((p) => p.length), [CHUNK_BYTES, CHUNK_BYTES, 110]);
  t.true(joined(spanning).equals(Buffer.concat([head, big])));
  t.deepEqual(partsOf([new Uint8Array(0)]).map((p) => p.length), [0], 'an empty body is one empty part');
});

test('packed segments - the same bytes as packing the value with its byte fields last, the fields not copied', (t) => {
  const raw = randomBytes(CHUNK_BYTES + 3);
  const parts = [randomBytes(70_000), randomBytes(300), randomBytes(5), Buffer.alloc(0), randomBytes(2 * CHUNK_BYTES)];
  const command = { type: 'inbox.deliver', raw, addresses: ['a@x.test'], parts, message: { subject: 'é', size: 7 }, digest: 'd' };
  const segments = packSegments(command, ['parts', 'raw']);
  t.true(segments.includes(raw) && parts.every((p) => segments.includes(p)), 'the bytes themselves');
  const { raw: _raw, parts: _parts, ...rest } = command;
  t.true(joined(segments).equals(Buffer.from(packBody({ ...rest, parts, raw }))));
  t.deepEqual(codec.unpack(joined(segments)), { ...rest, parts, raw });
  const many = Array.from({ length: 20 }, () => randomBytes(60_000));
  t.deepEqual(codec.unpack(joined(packSegments({ parts: many, n: 1 }, ['parts', 'raw']))), { n: 1, parts: many }, 'an array of 16 or more, a field absent');
  t.is(packSegments({ raw: Buffer.from('small'), parts: [Buffer.from('x')] }, ['parts', 'raw']).length, 1, 'small fields are packed with the rest');
});

test('assembler - parts of an announced length are placed as they come; the last gives the whole', (t) => {
  const body = randomBytes(3 * CHUNK_BYTES);
  const parts = partsOf([body]);
  const assembler = new Assembler();
  t.is(assembler.add(1, parts[0]!, true, body.length), null);
  t.true(assembler.busy);
  t.is(assembler.add(1, parts[1]!, true), null);
  t.true(Buffer.from(assembler.add(1, parts[2]!, false)!).equals(body));
  t.false(assembler.busy);
});

test('assembler - a wrong or missing length still joins the parts as they were sent', (t) => {
  const body = randomBytes(2 * CHUNK_BYTES + 5);
  const parts = partsOf([body]);
  for (const total of [0, body.length - 1, CHUNK_BYTES + 1, body.length + 9]) {
    const assembler = new Assembler();
    assembler.add(7, parts[0]!, true, total);
    assembler.add(7, parts[1]!, true);
    t.true(Buffer.from(assembler.add(7, parts[2]!, false)!).equals(body), `announced ${total}`);
  }
});

test('push parts - one part per turn of the event loop, the first with the length; stops when no longer wanted', async (t) => {
  const parts = partsOf([randomBytes(3 * CHUNK_BYTES)]);
  const seen: { turn: number; more: boolean; total: number }[] = [];
  // One tick per turn of the loop (each setImmediate runs in the next check phase).
  let turn = 0;
  const tick = () => {
    turn++;
    if (seen.length < parts.length) setImmediate(tick);
  };
  setImmediate(tick);
  pushParts(parts, (_part, more, total) => seen.push({ turn, more, total }), () => true);
  await until(() => seen.length === parts.length, 'every part pushed', 5_000);
  t.deepEqual(seen.map((s) => [s.more, s.total]), [[true, 3 * CHUNK_BYTES], [true, 0], [false, 0]]);
  t.true(seen[0]!.turn < seen[1]!.turn && seen[1]!.turn < seen[2]!.turn, 'each part in a later turn');

  let sent = 0;
  let wanted = true;
  pushParts(parts, () => {
    sent++;
    wanted = false;
  }, () => wanted);
  await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
  t.is(sent, 1);
});
