// The kit's event log (docs/driver-api.md, "Events") fed by DSH's live events: a child that
// DSH creates is published to the kit, a disposed one retired, and DSH's subagent/start and
// subagent/end become run.started and run.stopped. A leaf under the host: dsh_host.mjs wires it
// when a deployment boots, and it reaches DSH only through the host it is given.

/** The kit's event log fed by DSH's live events. */
export function observe(host) {
  const { ctx } = host;
  ctx.on('agent/created', ({ agent }) => {
    if (agent.session.header?.parentSession === undefined) return;
    host.adopt(agent);
    host.emit('agent.published', agent, { depth: agent.session.header?.delegationDepth ?? 0,
      snapshot: { view: host.viewNames(agent), prompt: [] } });
    const event = host.events[host.events.length - 1];
    host.pending.push(host.promptPairs(agent).then((pairs) => {
      event.data.snapshot.prompt = pairs;
    }, () => {}));
  });
  ctx.on('agent/disposed', ({ agent }) => {
    const descriptor = agent.session.events.find((e) => e.type === 'subagent/descriptor');
    if (descriptor !== undefined) {
      host.descriptors.set(String(agent.session.id), { provider: descriptor.data.provider,
        ...['persona', 'toolFilter'].reduce((out, key) => (descriptor.data[key] === undefined
          ? out : { ...out, [key]: descriptor.data[key] }), {}) });
    }
    if (!host.agents.has(agent.id)) return;
    host.agents.delete(agent.id);
    host.emit('agent.disposed', agent, {});
  });
  ctx.on('subagent/start', (info) => {
    host.events.push({ seq: host.events.length + 1, kind: 'run.started', agent: info.id,
      session: info.id, data: { provider: info.provider } });
  });
  ctx.on('subagent/end', (info) => {
    host.events.push({ seq: host.events.length + 1, kind: 'run.stopped', agent: info.id,
      session: info.id, data: { stopReason: info.stopReason } });
  });
}
