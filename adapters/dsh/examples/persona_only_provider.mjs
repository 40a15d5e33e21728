// A third-party DSH provider, as a provider author would write one: it runs children in process
// (DSH's own in-process driver) but advertises only the `persona` control, so the kit checks
// that DSH refuses the other controls for it (CA-01, CA-02) and that persona works (PE rules).
//
//   subagent-tck certify --target 'cmd:node adapters/dsh/server.mjs --provider-module
//       adapters/dsh/examples/persona_only_provider.mjs' --edition request-controls \
//       --baseline adapters/dsh/baseline.toml

import { startInProcessRun } from '@deepseek-ai/dsh-subagent-in-process-driver';

export const name = 'subagent-persona-only';
export const inject = ['subagents'];

class PersonaOnlyProvider {
  name = 'persona-only';
  capabilities = { persona: true, depthLimit: false, toolFilter: false, outputSchema: false };
  inheritsParentContext = false;

  start(request) {
    return startInProcessRun(request, {});
  }

  prepareContinuable() {
    return Promise.resolve({});
  }
}

export function apply(ctx) {
  ctx.subagents.registerProvider(new PersonaOnlyProvider());
}
