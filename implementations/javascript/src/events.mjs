// The ordered lifecycle event log of a deployment (FR-02, CA-02, DE-04).
//
// Kinds: agent.published (data.snapshot: the agent's view and prompt at the moment it became
// observable), run.started, run.stopped, agent.disposed, agent.retired (a live agent replaced
// by a cold resume of its session), provider.added, provider.removed, subagent-tool.mounted,
// subagent-tool.unmounted, subagent-tool.mount-failed. A refused operation emits nothing.

export const Kind = Object.freeze({
  AGENT_PUBLISHED: 'agent.published',
  AGENT_DISPOSED: 'agent.disposed',
  AGENT_RETIRED: 'agent.retired',
  RUN_STARTED: 'run.started',
  RUN_STOPPED: 'run.stopped',
  PROVIDER_ADDED: 'provider.added',
  PROVIDER_REMOVED: 'provider.removed',
  TOOL_MOUNTED: 'subagent-tool.mounted',
  TOOL_UNMOUNTED: 'subagent-tool.unmounted',
  TOOL_MOUNT_FAILED: 'subagent-tool.mount-failed',
});

export class EventLog {
  #events = [];

  emit(kind, { agent = null, session = null, data = {} } = {}) {
    this.#events.push({ seq: this.#events.length + 1, kind, agent, session, data });
  }

  list() {
    return this.#events.map((event) => ({ ...event }));
  }
}
