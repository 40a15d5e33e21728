// One deployment behind the driver API: the operations of conformance/core/target.py's Deployment
// protocol, each taking its keyword arguments (camelCase on the wire) and answering in the
// protocol's result shape. The route table in server.mjs is made from OPERATIONS.

import { resume, runChild, startChild } from './delegation.mjs';
import { Code, TckError } from './errors.mjs';
import { Host } from './host.mjs';
import { PERSONA_SECTION } from './prompt.mjs';
import { info } from './providers.mjs';
import { abortTurn, runTurn } from './loop.mjs';
import { DeploymentConfig, MODE, SdkCall, SessionHeader, StartRequest, SubagentToolConfig, T, ToolSpec }
  from './shapes.mjs';
import { SubagentTools } from './subagent_tool.mjs';

export { decodeArguments } from './arguments.mjs';

export class Deployment {
  constructor(rawConfig, gateway) {
    const config = DeploymentConfig(rawConfig, 'the deployment config');
    checkConfig(config);
    this.host = new Host(config, gateway);
    this.tools = new SubagentTools(this.host);
  }

  close() {
    this.host.close();
    this.host.gateway.close?.();
  }
}

function checkConfig(config) {
  const twice = (items) => items.map((item) => item.name)
    .filter((name, index, names) => names.indexOf(name) !== index);
  const presets = twice(config.presets);
  if (presets.length) {
    throw new TckError(Code.INVALID_CONFIG, `preset name(s) ${presets.join(', ')} are given `
      + 'more than once: each preset needs a distinct name', { presets });
  }
  const sections = twice(config.sections);
  if (sections.length) {
    throw new TckError(Code.INVALID_CONFIG, `section name(s) ${sections.join(', ')} are given `
      + 'more than once', { sections });
  }
  if (config.persona !== null && config.sections.some((s) => s.name === PERSONA_SECTION)) {
    throw new TckError(Code.INVALID_CONFIG, `give the deployment persona either as persona or `
      + `as a section named ${PERSONA_SECTION}, not both`);
  }
}

const agentRef = (host, agent) => ({ agent: agent.id, session: agent.session,
  depth: host.depthOf(agent) });

const entry = ({ name, origin, tool }) => ({ name, origin, description: tool.description ?? '' });

const runResult = (host, agent, outcome) => ({
  agent: agent.id,
  session: agent.session,
  depth: host.depthOf(agent),
  stopReason: outcome.stopReason,
  output: outcome.output ?? null,
  toolResults: outcome.toolResults,
});

const NONE = undefined;
const op = (args, handler) => ({ args, handler });
const arg = (validate, options = {}) => [validate, options];

/** name -> {args: {wireName: [validator, {default}]}, handler(deployment, args)}. */
export const OPERATIONS = {
  root: op({}, ({ host }) => agentRef(host, host.root)),
  'create-agent': op({
    headerDepth: arg(T.any(), { default: 0 }),
    runtimeDepth: arg(T.any(), { default: null }),
    hasRuntimeDepth: arg(T.bool(), { default: false }),
  }, ({ host }, a) => agentRef(host, host.createAgent({ headerDepth: a.headerDepth,
    runtimeDepth: a.hasRuntimeDepth ? a.runtimeDepth : undefined }))),
  'put-session-header': op({ header: arg(SessionHeader) }, ({ host }, a) => {
    host.store.putHeader(a.header);
    return NONE;
  }),
  resume: op({ session: arg(T.str()) }, ({ host }, a) => agentRef(host, resume(host, a.session))),
  sessions: op({}, ({ host }) => host.store.headers()),
  agents: op({}, ({ host }) => [...host.agents.keys()]),
  events: op({}, ({ host }) => host.events.list()),
  invocations: op({}, ({ host }) => host.invocations.map((i) => ({ ...i }))),
  observe: op({}, ({ host }) => ({
    sessions: host.store.headers(),
    agents: [...host.agents.keys()],
    events: host.events.list(),
    invocations: host.invocations.map((i) => ({ ...i })),
  })),
  'register-tool': op({ tool: arg(ToolSpec), agent: arg(T.strOrNull(), { default: null }) },
    ({ host }, a) => { host.registerTool(a.tool, a.agent); return NONE; }),
  'unregister-tool': op({ name: arg(T.str()), agent: arg(T.strOrNull(), { default: null }) },
    ({ host }, a) => { host.unregisterTool(a.name, a.agent); return NONE; }),
  'install-restriction': op({ agent: arg(T.str()), restriction: arg(T.any()) },
    ({ host }, a) => host.agent(a.agent).scope.restrict(a.restriction, host.registry.names())),
  'dispose-restriction': op({ agent: arg(T.str()), handle: arg(T.str()) },
    ({ host }, a) => { host.agent(a.agent).scope.dispose(a.handle); return NONE; }),
  'install-spawn-policy': op({ agent: arg(T.str()), policy: arg(T.any()) },
    ({ host }, a) => host.agent(a.agent).scope.restrictSpawn(a.policy, host.presets.keys())),
  'dispose-spawn-policy': op({ agent: arg(T.str()), handle: arg(T.str()) },
    ({ host }, a) => { host.agent(a.agent).scope.disposeSpawn(a.handle); return NONE; }),
  'set-mode': op({ agent: arg(T.str()), mode: arg(MODE) },
    ({ host }, a) => { host.agent(a.agent).scope.setMode(a.mode); return NONE; }),
  view: op({ agent: arg(T.strOrNull(), { default: null }) }, ({ host }, a) => (a.agent === null
    ? host.resolver.globalView() : host.viewOf(host.agent(a.agent))).map(entry)),
  'tool-schemas': op({ agent: arg(T.str()) }, ({ host }, a) => host.schemasOf(host.agent(a.agent))),
  lookup: op({ agent: arg(T.str()), name: arg(T.str()) }, ({ host }, a) => {
    const agent = host.agent(a.agent);
    const found = host.resolver.lookup(agent.scope, agent.id, a.name);
    return found === null ? null : entry(found);
  }),
  execute: op({ agent: arg(T.str()), name: arg(T.str()), arguments: arg(T.dict()) },
    ({ host }, a) => host.execute(host.agent(a.agent), a.name, a.arguments)),
  'sdk-bindings': op({ agent: arg(T.str()) }, ({ host }, a) => host.resolver.sdk(
    host.agent(a.agent).scope)),
  'run-code': op({ agent: arg(T.str()), calls: arg(T.list(SdkCall)) },
    ({ host }, a) => host.runCode(host.agent(a.agent), a.calls)),
  prompt: op({ agent: arg(T.str()) }, ({ host }, a) => host.sectionsOf(host.agent(a.agent))),
  providers: op({}, ({ host }) => host.providers.list().map(info)),
  'remove-provider': op({ name: arg(T.str()) },
    ({ host }, a) => { host.providers.remove(a.name); return NONE; }),
  'add-provider': op({ name: arg(T.str()) },
    ({ host }, a) => { host.providers.add(a.name); return NONE; }),
  start: op({ request: arg(StartRequest) }, async ({ host }, a) => {
    const child = startChild(host, a.request);
    const outcome = await runChild(host, child, a.request.prompt);
    return runResult(host, child, outcome);
  }),
  'run-turn': op({ agent: arg(T.str()), prompt: arg(T.str()) }, async ({ host }, a) => {
    const agent = host.agent(a.agent);
    return runResult(host, agent, await runTurn(host, agent, a.prompt));
  }),
  'abort-turn': op({ agent: arg(T.str()) }, ({ host }, a) => {
    abortTurn(host.agent(a.agent));
    return NONE;
  }),
  'load-subagent-tool': op({ config: arg(SubagentToolConfig) },
    ({ tools }, a) => { tools.load(a.config); return NONE; }),
  'unload-subagent-tool': op({ toolName: arg(T.str()) },
    ({ tools }, a) => { tools.unload(a.toolName); return NONE; }),
  'set-host-depth': op({ value: arg(T.any()) },
    ({ host }, a) => { host.setHostDepth(a.value); return NONE; }),
  'set-runtime-context': op({ enabled: arg(T.bool()) },
    ({ host }, a) => { host.runtimeContext = a.enabled; return NONE; }),
};
