// src/sdk_text.mjs reads the tool names back from the SDK text DSH's own renderer writes
// (dsh-tools renderToolsSdk, what the `tools:sdk` prompt section carries): every name, in
// DSH's order, whatever its spelling, description or output type. Run by
// tests/http/test_dsh_sdk_text.py with the Node 22 `npm ci` installs.

import assert from 'node:assert/strict';
import test from 'node:test';

import { renderToolsSdk } from '@deepseek-ai/dsh-tools';

import { declaredTools, sdkTextBindings } from '../src/sdk_text.mjs';

const OUTPUTS = [
  {},
  { type: 'string' },
  { type: 'object', properties: { a: { type: 'string' }, 'b: c': { type: 'number' } } },
  { oneOf: [{ type: 'object', properties: { kind: { const: 'x' } } },
    { type: 'object', properties: { nested: { type: 'object', properties: { d: {} } } } }] },
  { type: 'array', items: { type: 'object', properties: { '}': { type: 'boolean' } } } },
];

const schema = (name, i) => ({ name, description: `tool ${name} */ {{x}}\n  second: line`,
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
  output: OUTPUTS[i % OUTPUTS.length] });

/** DSH sorts by code unit order (renderToolsSdk); so does this. */
const dshOrder = (names) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

test('an SDK with no tool declares none', () => {
  assert.deepEqual(declaredTools(renderToolsSdk([])), []);
});

test('hand-written names: bare, quoted, and ones that look like the text around them', () => {
  const names = ['alpha', 'get-weather', 'has "quotes"', 'back\\slash', 'ünïcode', 'x: y',
    ' lead', '}', 'interface ToolOutputMap {', 'mcp__github__create_issue', '$dollar', '_'];
  const text = renderToolsSdk(names.map(schema));
  assert.deepEqual(declaredTools(text), dshOrder(names));
});

test('drawn names and output types round-trip through DSH\'s renderer', () => {
  let seed = 20261201;
  const next = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed; };
  const alphabet = 'abzAZ09_-$: "\\{}/*\u00e9\u4e2d\ud83d\ude00';
  for (let round = 0; round < 200; round += 1) {
    const names = new Set();
    const count = next() % 6;
    while (names.size < count) {
      const length = 1 + (next() % 8);
      names.add(Array.from({ length }, () => alphabet[next() % alphabet.length]).join(''));
    }
    const list = [...names];
    const text = renderToolsSdk(list.map((name, i) => schema(name, i + round)));
    assert.deepEqual(declaredTools(text), dshOrder(list), text);
  }
});

test('no SDK text (native mode) binds nothing; an unreadable one is refused, not guessed', () => {
  assert.deepEqual(sdkTextBindings(''), []);
  assert.throws(() => sdkTextBindings('## Writing code for run_code\n(no declarations)'),
    /declares no TypeScript ToolOutputMap/);
});
