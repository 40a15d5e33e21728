// Strict {{variable}} templates (PE-05): the deployment persona and every child persona.
//
// A placeholder is "{{" name "}}" with optional spaces inside the braces; a name is a letter
// or underscore followed by letters, digits, underscores or dots. Known names are substituted.
// An unknown name, an empty or ill-formed placeholder ({{}}, {{a b}}, {{1x}}), an unclosed
// "{{" and a stray "}}" anywhere are errors (INVALID_TEMPLATE) whose message
// names every one of them; a raw placeholder never leaves this module.

import { Code, TckError } from './errors.mjs';

const TOKEN = /\{\{([\s\S]*?)\}\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/** {text} or {unknown, malformed} (arrays of names and tokens in order of appearance). */
export function renderTemplate(template, variables) {
  const unknown = [];
  const malformed = [];
  const out = [];
  let position = 0;
  for (const match of template.matchAll(TOKEN)) {
    const literal = template.slice(position, match.index);
    // A stray "}}" is as malformed as an unclosed "{{", wherever it stands.
    if (literal.includes('}}')) malformed.push(literal.slice(literal.indexOf('}}'), literal.indexOf('}}') + 40));
    out.push(literal);
    position = match.index + match[0].length;
    const raw = match[1];
    const name = raw.trim();
    if (!NAME.test(name) || raw.includes('{{')) {
      malformed.push(match[0]);
    } else if (!Object.hasOwn(variables, name)) {
      if (!unknown.includes(name)) unknown.push(name);
    } else {
      out.push(variables[name]);
    }
  }
  const rest = template.slice(position);
  if (rest.includes('{{') || rest.includes('}}')) {
    const at = rest.includes('{{') ? rest.indexOf('{{') : rest.indexOf('}}');
    malformed.push(rest.slice(at, at + 40));
  }
  out.push(rest);
  if (unknown.length || malformed.length) return { unknown, malformed };
  return { text: out.join('') };
}

/** The rendered text, or INVALID_TEMPLATE naming the placeholders at fault. */
export function render(template, variables, what = 'the persona') {
  const result = renderTemplate(template, variables);
  if (result.text !== undefined) return result.text;
  const parts = [];
  if (result.unknown.length) {
    parts.push(`unknown variable(s) ${result.unknown.map((n) => `{{${n}}}`).join(', ')} `
      + `(known: ${Object.keys(variables).join(', ') || 'none'})`);
  }
  if (result.malformed.length) {
    parts.push(`malformed placeholder(s) ${result.malformed.map((t) => `'${t}'`).join(', ')}`);
  }
  throw new TckError(Code.INVALID_TEMPLATE, `${what} is not a valid template: `
    + `${parts.join('; ')}; use {{name}} with a known variable, or remove the braces`,
  { unknown: result.unknown, malformed: result.malformed });
}
