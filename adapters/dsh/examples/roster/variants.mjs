// The broken rosters (the same four as examples/roster/broken.py: examples/roster/js/variants.mjs),
// chosen by name in SUBAGENT_TCK_ROSTER_VARIANT.

import { VARIANTS } from '../../../../examples/roster/js/variants.mjs';

export { VARIANTS };

export function variant(name) {
  if (name === undefined || name === '') return {};
  const make = VARIANTS[name];
  if (make === undefined) {
    throw new Error(`unknown SUBAGENT_TCK_ROSTER_VARIANT ${name}: use ${Object.keys(VARIANTS).join(', ')}`);
  }
  return make();
}
