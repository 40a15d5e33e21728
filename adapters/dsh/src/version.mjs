// The DSH version actually loaded: read from the installed @deepseek-ai/dsh-subagent package
// (the package whose delegation code the adapter drives), never a constant, so every message
// and /v1/info name what ran.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

function loaded() {
  // the package's entry resolves inside its own directory; its package.json sits above lib/
  let dir = dirname(require.resolve('@deepseek-ai/dsh-subagent'));
  for (let i = 0; i < 4; i += 1) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (manifest.name === '@deepseek-ai/dsh-subagent') return manifest.version;
    } catch { /* not this directory */ }
    dir = dirname(dir);
  }
  return 'unknown';
}

export const DSH_VERSION = loaded();
/** "DSH <version>" for messages. */
export const DSH = `DSH ${DSH_VERSION}`;
