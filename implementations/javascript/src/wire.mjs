// The JSON codec of the driver API (docs/driver-api.md, "Numbers"; docs/rules.md DE "Decision").
//
// Numbers are read as JavaScript reads JSON (JSON.parse: -0 stays negative zero, integers
// beyond 2^53 become the nearest double, the tokens NaN/Infinity are a syntax error). The
// non-finite values travel tagged, {"$number": "NaN" | "Infinity" | "-Infinity"}, and an object
// that would read as a tag is escaped as {"$literal": {...}}. The encoder keeps -0 as "-0"
// (JSON.stringify would write 0) so that a raw stored depth comes back as it was written.

const TAG = '$number';
const LITERAL = '$literal';
const NON_FINITE = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY };

export class Malformed extends Error {}

/** Undo the tags of a parsed JSON value; a malformed tag throws Malformed. */
export function fromJson(value) {
  if (Array.isArray(value)) return value.map(fromJson);
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === TAG) {
      const inner = value[TAG];
      if (typeof inner !== 'string' || !Object.hasOwn(NON_FINITE, inner)) {
        throw new Malformed(`{"$number": ${JSON.stringify(inner)}} is not a tagged number: `
          + 'use "NaN", "Infinity" or "-Infinity"');
      }
      return NON_FINITE[inner];
    }
    if (keys.length === 1 && keys[0] === LITERAL) {
      const inner = value[LITERAL];
      if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) {
        throw new Malformed('"$literal" must wrap a JSON object');
      }
      return mapObject(inner, fromJson);
    }
    return mapObject(value, fromJson);
  }
  return value;
}

function mapObject(object, fn) {
  const out = {};
  for (const [key, item] of Object.entries(object)) {
    // defineProperty: a key such as "__proto__" stays an ordinary own key
    Object.defineProperty(out, key, { value: fn(item), enumerable: true, writable: true,
      configurable: true });
  }
  return out;
}

/** Parse wire text (a Buffer or string). Throws Malformed for anything not standard JSON. */
export function loads(data) {
  let text;
  try {
    text = typeof data === 'string' ? data : new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch (error) {
    throw new Malformed(`the body is not UTF-8: ${error.message}`);
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Malformed(`${error.message} (NaN and Infinity are not JSON numbers: send `
      + '{"$number": "NaN"} and the like)');
  }
  return fromJson(parsed);
}

/** Encode a value for the wire: tags for non-finite numbers, -0 kept, undefined left out. */
export function dumps(value) {
  // JSON.stringify writes what encode would for a value without anything encode treats its
  // own way (checked without building text: a server encodes thousands of answers a second)
  return plain(value) ? JSON.stringify(value) : encode(value);
}

/** Whether JSON.stringify writes ``value`` as encode does: finite numbers other than -0,
 * strings, booleans, null, and arrays and plain-data objects of those, no object reading as a
 * tag; anything else (undefined, a function, a bigint, toJSON, a tag-like key) takes encode. */
function plain(value) {
  if (value === null) return true;
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'string':
    case 'boolean':
      return true;
    case 'object': {
      if (Array.isArray(value)) {
        for (const item of value) if (!plain(item)) return false;
        return true;
      }
      if (typeof value.toJSON === 'function') return false;
      const keys = Object.keys(value);
      if (keys.length === 1 && (keys[0] === TAG || keys[0] === LITERAL)) return false;
      for (const key of keys) if (!plain(value[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

function encode(value) {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'number':
      if (Number.isNaN(value)) return `{"${TAG}":"NaN"}`;
      if (value === Number.POSITIVE_INFINITY) return `{"${TAG}":"Infinity"}`;
      if (value === Number.NEGATIVE_INFINITY) return `{"${TAG}":"-Infinity"}`;
      if (Object.is(value, -0)) return '-0';
      return JSON.stringify(value);
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'bigint':
      return value.toString();
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(encode).join(',')}]`;
      if (typeof value.toJSON === 'function') return encode(value.toJSON());
      const entries = Object.entries(value).filter(([, item]) => item !== undefined
        && typeof item !== 'function');
      const body = `{${entries.map(([k, item]) => `${JSON.stringify(k)}:${encode(item)}`)
        .join(',')}}`;
      if (entries.length === 1 && (entries[0][0] === TAG || entries[0][0] === LITERAL)) {
        return `{"${LITERAL}":${body}}`;
      }
      return body;
    }
    default:
      throw new TypeError(`a ${typeof value} cannot travel on the JSON wire`);
  }
}

/** The body of an error answer. */
export function errorBody(error) {
  return { code: error.code, message: error.reason, details: error.details ?? {} };
}
