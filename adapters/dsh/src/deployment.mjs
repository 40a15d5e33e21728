// The operations of the kit's Deployment protocol (conformance/core/target.py) over one DshHost.
// Argument shapes are validated by shapes.mjs (copied from implementations/javascript); each
// handler is a translation into DSH calls (dsh_host.mjs, delegation.mjs, mounts.mjs,
// stored_header.mjs). What DSH cannot express (set-host-depth, set-runtime-context) is answered
// with a refusal whose message says so, so the rules that need it fail visibly, never pass.

import { Code, TckError } from './errors.mjs';
import { DshHost } from './dsh_host.mjs';
import { DeploymentConfig, MODE, SessionHeader, StartRequest, SubagentToolConfig, T, ToolSpec }
  from './shapes.mjs';
import { providerInfos } from './providers.mjs';
import { runCode } from './run_code.mjs';
import { SdkCall } from './shapes.mjs';
import { abortTurn, runTurn, start } from './delegation.mjs';
import { putSessionHeader } from './stored_header.mjs';
import { PATH, isContinuableChild, lastPrompt, resumeContinuable, runContinuableTurn,
  startContinuable } from './continuable.mjs';
import { addProvider, loadSubagentTool, noHostDepth, noRuntimeContext, removeProvider,
  unloadSubagentTool } from './mounts.mjs';

export async function openDeployment(rawConfig, gateway) {
  const config = DeploymentConfig(rawConfig, 'the deployment config');
  const host = new DshHost(config, gateway);
  try {
    await host.boot();
  } catch (error) {
    host.close(); // a deployment refused at boot leaves nothing running
    throw error;
  }
  return host;
}

const NONE = undefined;
const op = (args, handler) => ({ args, handler });
const arg = (validate, options = {}) => [validate, options];

export const OPERATIONS = {
  root: op({}, (host) => host.ref(host.root)),
  'create-agent': op({
    headerDepth: arg(T.any(), { default: 0 }),
    runtimeDepth: arg(T.any(), { default: null }),
    hasRuntimeDepth: arg(T.bool(), { default: false }),
  }, async (host, a) => host.ref(await host.createAgent({ headerDepth: a.headerDepth,
    runtimeDepth: a.hasRuntimeDepth ? a.runtimeDepth : undefined }))),
  'put-session-header': op({ header: arg(SessionHeader) },
    async (host, a) => { await putSessionHeader(host, a.header); return NONE; }),
  resume: op({ session: arg(T.str()) }, async (host, a) => (isContinuableChild(host, a.session)
    ? resumeContinuable(host, a.session) : host.ref(await host.resume(a.session)))),
  sessions: op({}, (host) => host.sessions()),
  agents: op({}, (host) => [...host.agents.keys()]),
  events: op({}, (host) => host.events),
  invocations: op({}, (host) => host.invocations.map((i) => ({ ...i }))),
  // the four reads above at one instant (protocol 1.x `observe`)
  observe: op({}, async (host) => ({
    sessions: await host.sessions(),
    agents: [...host.agents.keys()],
    events: host.events,
    invocations: host.invocations.map((i) => ({ ...i })),
  })),
  'register-tool': op({ tool: arg(ToolSpec), agent: arg(T.strOrNull(), { default: null }) },
    (host, a) => { host.registerTool(a.tool, a.agent); return NONE; }),
  'unregister-tool': op({ name: arg(T.str()), agent: arg(T.strOrNull(), { default: null }) },
    (host, a) => { host.unregisterTool(a.name, a.agent); return NONE; }),
  'install-restriction': op({ agent: arg(T.str()), restriction: arg(T.any()) },
    (host, a) => host.installRestriction(a.agent, a.restriction)),
  'dispose-restriction': op({ agent: arg(T.str()), handle: arg(T.str()) },
    (host, a) => { host.disposeRestriction(a.agent, a.handle); return NONE; }),
  'set-mode': op({ agent: arg(T.str()), mode: arg(MODE) },
    (host, a) => { host.setMode(a.agent, a.mode); return NONE; }),
  view: op({ agent: arg(T.strOrNull(), { default: null }) }, (host, a) => host.view(a.agent)),
  'tool-schemas': op({ agent: arg(T.str()) }, (host, a) => host.toolSchemas(a.agent)),
  lookup: op({ agent: arg(T.str()), name: arg(T.str()) }, (host, a) => host.lookup(a.agent, a.name)),
  execute: op({ agent: arg(T.str()), name: arg(T.str()), arguments: arg(T.dict()) },
    (host, a) => host.execute(a.agent, a.name, a.arguments)),
  'sdk-bindings': op({ agent: arg(T.str()) }, (host, a) => host.sdkBindings(a.agent)),
  'run-code': op({ agent: arg(T.str()), calls: arg(T.list(SdkCall)) },
    (host, a) => runCode(host, a.agent, a.calls)),
  prompt: op({ agent: arg(T.str()) }, (host, a) => (isContinuableChild(host, a.agent)
    && !host.agents.has(a.agent) ? lastPrompt(host, a.agent) : host.prompt(a.agent))),
  providers: op({}, (host) => providerInfos(host.ctx)),
  'remove-provider': op({ name: arg(T.str()) },
    async (host, a) => { await removeProvider(host, a.name); return NONE; }),
  'add-provider': op({ name: arg(T.str()) },
    async (host, a) => { await addProvider(host, a.name); return NONE; }),
  start: op({ request: arg(StartRequest) }, (host, a) => (PATH.continuable
    ? startContinuable(host, a.request) : start(host, a.request))),
  'run-turn': op({ agent: arg(T.str()), prompt: arg(T.str()) },
    (host, a) => (isContinuableChild(host, a.agent) ? runContinuableTurn(host, a.agent, a.prompt)
      : runTurn(host, a.agent, a.prompt))),
  'abort-turn': op({ agent: arg(T.str()) }, (host, a) => { abortTurn(host, a.agent); return NONE; }),
  'load-subagent-tool': op({ config: arg(SubagentToolConfig) },
    async (host, a) => { await loadSubagentTool(host, a.config); return NONE; }),
  'unload-subagent-tool': op({ toolName: arg(T.str()) },
    async (host, a) => { await unloadSubagentTool(host, a.toolName); return NONE; }),
  'set-host-depth': op({ value: arg(T.any()) }, noHostDepth),
  'set-runtime-context': op({ enabled: arg(T.bool()) }, noRuntimeContext),
};
