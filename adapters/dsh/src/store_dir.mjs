// Where the adapter keeps DSH's session stores (adapters/dsh/README.md, "Status"). Each
// deployment gets a directory of its own for DSH's JSONL persistence and its preset roster,
// made at boot and removed at close: a fuzz campaign makes and removes hundreds a minute, and on
// a disk that was about a tenth of a certification's time. So the stores live in RAM
// (/dev/shm) where the machine has it with room to spare, unless TMPDIR names a place: that is
// the user's choice, as is the temporary directory where there is no /dev/shm.

import { accessSync, constants, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';

export const SHM = '/dev/shm';
/** The room /dev/shm must have free (a container's default is 64 MiB: too little for a long
 * campaign's logs, then the disk it is). */
export const SHM_ROOM = 256 * 2 ** 20;

/**
 * The directory the adapter's stores go under. `fs` (for tests) has statfsSync and accessSync;
 * `env` is the process environment.
 */
export function storeBase(env = process.env, fs = { statfsSync, accessSync }) {
  if (env.TMPDIR) return tmpdir();
  try {
    const { bavail, bsize } = fs.statfsSync(SHM);
    fs.accessSync(SHM, constants.W_OK);
    if (Number(bavail) * Number(bsize) >= SHM_ROOM) return SHM;
  } catch {
    // no /dev/shm here, or not ours to write
  }
  return tmpdir();
}
