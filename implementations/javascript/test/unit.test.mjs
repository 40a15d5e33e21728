// Unit tests of the pure parts: the depth domain, restrictions, templates, the wire codec and
// section assembly.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { deriveChildDepth, depthProblem, isDepth, MAX_SAFE } from '../src/depth.mjs';
import { TckError } from '../src/errors.mjs';
import { MODEL_PLACEHOLDER, fromChat, toChat } from '../src/gateway.mjs';
import { SessionStore } from '../src/store.mjs';
import { assembleSections, PERSONA_SECTION, systemText } from '../src/prompt.mjs';
import { parseRestriction } from '../src/restriction.mjs';
import { render, renderTemplate } from '../src/template.mjs';
import { dumps, loads, Malformed } from '../src/wire.mjs';

const refusal = (fn) => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof TckError, `expected a TckError, got ${error}`);
    return error;
  }
  assert.fail('expected a refusal');
};

describe('the depth domain (DE decision)', () => {
  test('accepts whole finite numbers from 0 to 2^53-1 as JSON reads them', () => {
    for (const text of ['0', '1', '1.0', '1e2', String(MAX_SAFE)]) {
      assert.equal(isDepth(JSON.parse(text)), true, text);
    }
  });

  test('refuses -0, negatives, fractions, non-finite, unsafe and non-numbers', () => {
    const bad = [JSON.parse('-0'), JSON.parse('-0.0'), -1, 0.5, NaN, Infinity, -Infinity,
      2 ** 53, JSON.parse('9007199254740993'), true, '1', null, [], {}, undefined];
    for (const value of bad) assert.notEqual(depthProblem(value), null, String(value));
  });

  test('a child is one deeper than the larger of header and runtime depth', () => {
    assert.equal(deriveChildDepth({ header: 0 }), 1);
    assert.equal(deriveChildDepth({ header: 1, runtime: 4 }), 5);
    assert.equal(deriveChildDepth({ header: 5, runtime: 1 }), 6);
  });

  test('a child deeper than the cap is DEPTH_EXCEEDED, equal to it is allowed', () => {
    assert.equal(deriveChildDepth({ header: 1, cap: 2 }), 2);
    assert.equal(refusal(() => deriveChildDepth({ header: 0, cap: 0 })).code, 'DEPTH_EXCEEDED');
  });

  test('the cap is validated before the stored and runtime depths', () => {
    const error = refusal(() => deriveChildDepth({ header: NaN, runtime: -1, cap: -0 }));
    assert.equal(error.code, 'INVALID_DEPTH');
    assert.match(error.reason, /maxDepth/);
  });

  test('a parent at 2^53-1 cannot start a child, with or without a cap', () => {
    for (const cap of [undefined, MAX_SAFE]) {
      assert.equal(refusal(() => deriveChildDepth({ header: MAX_SAFE, cap })).code,
        'INVALID_DEPTH');
      assert.equal(refusal(() => deriveChildDepth({ header: 0, runtime: MAX_SAFE, cap })).code,
        'INVALID_DEPTH');
    }
    assert.equal(deriveChildDepth({ header: MAX_SAFE - 1, cap: MAX_SAFE }), MAX_SAFE);
  });
});

describe('restrictions (TF-01, TF-07, TF-08)', () => {
  const globals = ['a', 'b', 'c'];

  test('allow before deny: with both lists the result is allow minus deny', () => {
    const r = parseRestriction({ allow: ['a', 'b'], deny: ['b'] }, globals);
    assert.deepEqual(globals.filter((n) => r.admits(n)), ['a']);
  });

  test('an empty allow hides everything and an empty deny hides nothing', () => {
    assert.deepEqual(globals.filter((n) => parseRestriction({ allow: [] }, globals).admits(n)), []);
    assert.deepEqual(globals.filter((n) => parseRestriction({ deny: [] }, globals).admits(n)),
      globals);
  });

  test('a filter with neither list, or both null, is refused', () => {
    for (const value of [{}, { allow: null }, { deny: null }, { allow: null, deny: null }]) {
      assert.equal(refusal(() => parseRestriction(value, globals)).code, 'INVALID_TOOL_FILTER');
    }
  });

  test('every name outside the global set is listed, once, in order', () => {
    const error = refusal(() => parseRestriction({ allow: ['a', 'aa', 'lima'],
      deny: ['run_code', 'aa'] }, globals));
    assert.equal(error.code, 'INVALID_TOOL_FILTER');
    assert.deepEqual(error.details.offending, ['aa', 'lima', 'run_code']);
  });

  test('values that are not lists of names are refused', () => {
    for (const value of ['a', [], null, { allow: 'a' }, { deny: [1] }, { allow: ['a'], x: 1 }]) {
      assert.equal(refusal(() => parseRestriction(value, globals)).code, 'INVALID_TOOL_FILTER');
    }
  });

  test('the caller\'s lists are copied', () => {
    const allow = ['a'];
    const r = parseRestriction({ allow }, globals);
    allow.push('b');
    assert.equal(r.admits('b'), false);
  });
});

describe('strict templates (PE-05)', () => {
  const variables = { team: 'T7', role: 'R' };

  test('known variables are substituted, with spaces inside the braces allowed', () => {
    assert.equal(render('as {{role}} of {{ team }}', variables), 'as R of T7');
  });

  test('an unknown variable is an error that names it', () => {
    const error = refusal(() => render('as {{nobody}}', variables));
    assert.equal(error.code, 'INVALID_TEMPLATE');
    assert.match(error.reason, /nobody/);
  });

  test('malformed and unclosed placeholders are errors that name them', () => {
    for (const [template, token] of [['x {{a b}}', '{{a b}}'], ['{{}}', '{{}}'],
      ['{{1x}}', '{{1x}}'], ['as {{role.', '{{role.'], ['{{{team}}', '{{{team}}']]) {
      const error = refusal(() => render(template, variables));
      assert.ok(error.reason.includes(token), `${template}: ${error.reason}`);
    }
  });

  test('a stray closing pair before a placeholder is malformed too', () => {
    const result = renderTemplate('a}}b{{team}}', { team: 'core' });
    assert.deepEqual(result.malformed, ['}}b']);
  });

  test('text without placeholders renders as itself', () => {
    assert.deepEqual(renderTemplate('plain { text }', variables), { text: 'plain { text }' });
  });
});

describe('the wire codec', () => {
  test('reads numbers as JavaScript does and keeps -0 when writing', () => {
    const value = loads('{"a": -0, "b": 9007199254740993, "c": 1.0}');
    assert.ok(Object.is(value.a, -0));
    assert.equal(value.b, 2 ** 53);
    assert.equal(dumps(value), '{"a":-0,"b":9007199254740992,"c":1}');
  });

  test('non-finite numbers travel tagged, and a raw NaN token is malformed', () => {
    assert.ok(Number.isNaN(loads('{"$number": "NaN"}')));
    assert.equal(loads('[{"$number": "-Infinity"}]')[0], -Infinity);
    assert.equal(dumps([NaN, Infinity]), '[{"$number":"NaN"},{"$number":"Infinity"}]');
    assert.throws(() => loads('{"a": NaN}'), Malformed);
    assert.throws(() => loads('{"$number": "nan"}'), Malformed);
  });

  test('what needs the codec deep inside a value is written by it, the rest as JSON writes it', () => {
    assert.equal(dumps({ a: [1, 'x', { b: [true, null] }] }), '{"a":[1,"x",{"b":[true,null]}]}');
    assert.equal(dumps({ a: [{ b: [-0] }] }), '{"a":[{"b":[-0]}]}');
    assert.equal(dumps([{ x: { y: Infinity } }]), '[{"x":{"y":{"$number":"Infinity"}}}]');
    assert.equal(dumps({ a: [{ $literal: 1 }] }), '{"a":[{"$literal":{"$literal":1}}]}');
    assert.equal(dumps({ a: { b: undefined, c: 2 } }), '{"a":{"c":2}}');
    assert.equal(dumps({ a: [undefined] }), '{"a":[null]}');
    assert.equal(dumps({ a: { t: new Date(0) } }), '{"a":{"t":"1970-01-01T00:00:00.000Z"}}');
    const Depth = class { toJSON() { return -0; } };
    assert.equal(dumps({ a: [new Depth()] }), '{"a":[-0]}');
    assert.equal(dumps({ a: [2n ** 60n] }), '{"a":[1152921504606846976]}');
  });

  test('an object that reads as a tag is escaped and comes back as itself', () => {
    const value = { $number: 'NaN' };
    assert.equal(dumps(value), '{"$literal":{"$number":"NaN"}}');
    assert.deepEqual(loads(dumps(value)), value);
  });
});

describe('prompt sections (PE-01, TF-16)', () => {
  const inherited = [{ name: PERSONA_SECTION, text: 'DEPLOYMENT', guides: null },
    { name: 'house', text: 'HOUSE', guides: null }, { name: 'guide', text: 'GUIDE', guides: 'b' }];

  test('a scoped section replaces the inherited one in its position', () => {
    const sections = assembleSections(inherited, [{ name: PERSONA_SECTION, text: 'CHILD' }],
      () => true);
    assert.deepEqual(sections.map((s) => s.text), ['CHILD', 'HOUSE', 'GUIDE']);
  });

  test('an empty persona shadows with an empty section that the system text skips', () => {
    const sections = assembleSections(inherited, [{ name: PERSONA_SECTION, text: '' }], () => true);
    assert.equal(sections[0].text, '');
    assert.equal(systemText(sections), 'HOUSE\n\nGUIDE');
  });

  test('guidance is left out where its tool is hidden', () => {
    const sections = assembleSections(inherited, [], (name) => name !== 'b');
    assert.deepEqual(sections.map((s) => s.name), [PERSONA_SECTION, 'house']);
  });
});

describe('the session store', () => {
  test('keeps a raw stored depth as written, detached from the caller', () => {
    const store = new SessionStore();
    const descriptor = { provider: 'spawn' };
    for (const depth of [-0, NaN, 'x', 2 ** 53]) {
      store.putHeader({ session: 's', delegationDepth: depth, descriptor });
      assert.ok(Object.is(store.header('s').delegationDepth, depth), String(depth));
    }
    descriptor.provider = 'changed';
    assert.equal(store.header('s').descriptor.provider, 'spawn');
    assert.equal(refusal(() => store.header('nope')).code, 'UNKNOWN_SESSION');
  });

  test('lists headers in first-write order and keeps transcripts apart', () => {
    const store = new SessionStore();
    store.putHeader({ session: 'a' });
    store.putHeader({ session: 'b', parent: 'a', delegationDepth: 1 });
    store.putHeader({ session: 'a', delegationDepth: 3 });
    store.saveTranscript('a', [{ role: 'user', content: 'hi' }]);
    assert.deepEqual(store.headers().map((h) => [h.session, h.delegationDepth]), [['a', 3], ['b', 1]]);
    assert.deepEqual(store.transcript('a'), [{ role: 'user', content: 'hi' }]);
    assert.deepEqual(store.transcript('b'), []);
  });
});

describe('the Chat Completions mapping', () => {
  test('notices travel after the conversation as runtime-context user messages', () => {
    const body = toChat({ system: 'S', tools: [], context: ['at the cap'], messages: [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'c', name: 't', arguments: { a: 1 } }] },
      { role: 'tool', toolCallId: 'c', content: 'UNKNOWN_TOOL: no', isError: true }] });
    assert.deepEqual(body.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'user']);
    assert.equal(body.messages.at(-1).content, '[runtime-context] at the cap');
    assert.equal(body.messages[2].tool_calls[0].function.arguments, '{"a":1}');
    assert.equal(body.messages[3].is_error, true);
    assert.equal(body.tools, undefined);
  });

  test('the model a runtime names travels in the body; none sends the placeholder', () => {
    const base = { system: 'S', tools: [], messages: [] };
    assert.equal(toChat({ ...base, model: 'tier-large' }).model, 'tier-large');
    assert.equal(toChat(base).model, MODEL_PLACEHOLDER);
    assert.equal(toChat({ ...base, model: '' }).model, MODEL_PLACEHOLDER);
  });

  test('finish reasons map to stop reasons and bad arguments are flagged, not thrown', () => {
    const reply = (finish, calls) => fromChat({ choices: [{ finish_reason: finish,
      message: { content: 'x', tool_calls: calls } }] });
    assert.equal(reply('length').stopReason, 'max-tokens');
    assert.equal(reply('content_filter').stopReason, 'refusal');
    assert.equal(reply('aborted').stopReason, 'aborted');
    const [call] = reply('tool_calls', [{ id: 'c', function: { name: 't', arguments: '{oops' } }])
      .toolCalls;
    assert.equal(call.malformed, '{oops');
    assert.throws(() => reply('exploded'));
  });
});
