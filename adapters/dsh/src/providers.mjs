// Provider descriptors read from DSH's own subagent registry (ctx.subagents): name, the
// capability flags the provider object advertises, and inheritsParentContext. The kit's
// capability names are DSH's (outputSchema, depthLimit, toolFilter, persona).

const KNOWN = ['depthLimit', 'persona', 'toolFilter', 'outputSchema'];

export function providerInfos(ctx) {
  return ctx.subagents.list().map((name) => {
    const provider = ctx.subagents.getProvider(name);
    return {
      name,
      capabilities: KNOWN.filter((flag) => provider.capabilities?.[flag] === true),
      inheritsParentContext: provider.inheritsParentContext === true,
    };
  });
}
