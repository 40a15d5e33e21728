// The one error root of this runtime: a stable code, a message that names the fix, and
// machine-readable details. Over the driver API it becomes the JSON body {code, message,
// details} (docs/driver-api.md, "Errors"); the codes are the kit's ErrorCode values.

export const Code = Object.freeze({
  UNSUPPORTED_CAPABILITY: 'UNSUPPORTED_CAPABILITY', // CA-01
  NO_PROVIDER: 'NO_PROVIDER', // CA-05
  INVALID_TOOL_FILTER: 'INVALID_TOOL_FILTER', // TF-07, TF-08
  INVALID_DEPTH: 'INVALID_DEPTH', // DE-05..DE-08
  DEPTH_EXCEEDED: 'DEPTH_EXCEEDED', // DE-03
  UNKNOWN_TOOL: 'UNKNOWN_TOOL', // TF-12
  RESERVED_NAME: 'RESERVED_NAME', // TF-06
  DUPLICATE_TOOL: 'DUPLICATE_TOOL',
  INVALID_TEMPLATE: 'INVALID_TEMPLATE', // PE-05
  INVALID_OUTPUT_SCHEMA: 'INVALID_OUTPUT_SCHEMA', // FR-03
  REQUEST_CONTROLS_REFUSED: 'REQUEST_CONTROLS_REFUSED', // EN-02
  SETUP_FAILED: 'SETUP_FAILED',
  NOT_RESUMABLE: 'NOT_RESUMABLE', // FR-04
  UNKNOWN_PRESET: 'UNKNOWN_PRESET',
  UNKNOWN_AGENT: 'UNKNOWN_AGENT',
  UNKNOWN_SESSION: 'UNKNOWN_SESSION',
  UNKNOWN_RESTRICTION: 'UNKNOWN_RESTRICTION',
  DUPLICATE_TOOL_NAME: 'DUPLICATE_TOOL_NAME', // ST-04
  INVALID_CONFIG: 'INVALID_CONFIG',
  INVALID_REQUEST: 'INVALID_REQUEST',
  SPAWN_DENIED: 'SPAWN_DENIED', // SP-01: the scope's spawn policies refuse the preset
  INVALID_SPAWN_POLICY: 'INVALID_SPAWN_POLICY', // SP-01: malformed, or naming unknown presets
  PROTOCOL_ERROR: 'PROTOCOL_ERROR',
  UNSUPPORTED_OPERATION: 'UNSUPPORTED_OPERATION', // docs/driver-api.md#unsupported-operations
});

export class TckError extends Error {
  constructor(code, message, details = {}) {
    super(`${code}: ${message}`);
    this.name = 'TckError';
    this.code = code;
    this.reason = message;
    this.details = details ?? {};
  }

  toJSON() {
    return { code: this.code, message: this.reason, details: this.details };
  }
}

/** The HTTP status of a refusal: malformed input 400, unknown route 404, a refusal 422. */
export function statusOf(code) {
  if (code === Code.INVALID_REQUEST) return 400;
  if (code === Code.PROTOCOL_ERROR) return 404;
  return 422;
}
