// src/store_dir.mjs: DSH's session stores go to RAM where there is room for them, to the
// temporary directory otherwise, and where TMPDIR says when it says. Run by
// tests/http/test_dsh_sdk_text.py with the Node 22 `npm ci` installs.

import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import test from 'node:test';

import { SHM, SHM_ROOM, storeBase } from '../src/store_dir.mjs';

const fs = (free, writable = true) => ({
  statfsSync: () => ({ bavail: free, bsize: 1 }),
  accessSync: () => { if (!writable) throw new Error('EACCES'); },
});

test('the stores go to /dev/shm when it has room and is writable', () => {
  assert.equal(storeBase({}, fs(SHM_ROOM)), SHM);
  assert.equal(storeBase({}, fs(SHM_ROOM * 40)), SHM);
});

test('a small or read-only /dev/shm, or none, leaves them in the temporary directory', () => {
  assert.equal(storeBase({}, fs(SHM_ROOM - 1)), tmpdir());
  assert.equal(storeBase({}, fs(SHM_ROOM * 4, false)), tmpdir());
  const none = { statfsSync: () => { throw new Error('ENOENT'); }, accessSync: () => {} };
  assert.equal(storeBase({}, none), tmpdir());
});

test('TMPDIR, when set, is where they go', () => {
  assert.equal(storeBase({ TMPDIR: '/somewhere' }, fs(SHM_ROOM * 4)), tmpdir());
});
