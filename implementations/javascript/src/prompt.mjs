// Prompt sections (PE-01..PE-04, TF-16).
//
// The deployment's sections are its persona (section deployment:persona-prefix, a strict
// template rendered once with the deployment's variables) followed by its other sections in
// order. A scope's own section of the same name is more specific and wins, in the inherited
// section's position (PE-01); a scope-only section follows the inherited ones. A section that
// guides a tool is left out where that tool is not in the scope's view (TF-16); nothing else is
// rewritten. The system text of a model request is the non-empty texts joined by a blank line:
// prompt inspection and the wire read the same sections (PE-04).

export const PERSONA_SECTION = 'deployment:persona-prefix';

/**
 * The scope's sections as [{name, text}]. `inherited`: the deployment's [{name, text, guides}];
 * `scoped`: the scope's [{name, text}]; `visible(name)`: whether a tool is in the scope's view.
 */
export function assembleSections(inherited, scoped, visible) {
  const mine = new Map(scoped.map((section) => [section.name, section]));
  const used = new Set();
  const out = [];
  for (const section of inherited) {
    const own = mine.get(section.name);
    if (own) {
      out.push({ name: own.name, text: own.text });
      used.add(section.name);
    } else if (section.guides == null || visible(section.guides)) {
      out.push({ name: section.name, text: section.text });
    }
  }
  for (const section of scoped) {
    if (!used.has(section.name)) out.push({ name: section.name, text: section.text });
  }
  return out;
}

export function systemText(sections) {
  return sections.filter((section) => section.text).map((section) => section.text).join('\n\n');
}
