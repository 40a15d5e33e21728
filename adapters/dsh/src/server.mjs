// The driver API server of the JavaScript implementation (implementations/javascript:
// routing, body limits, codec), with DSH behind it: each deployment is a DshHost
// (deployment.mjs, dsh_host.mjs) and GET /v1/info describes DSH and its providers.

import {
  DriverServer as JavaScriptDriverServer, MAX_BODY, PROTOCOL_VERSION, VERSION_HEADER, infoBody,
} from '../../../implementations/javascript/src/server.mjs';
import { OPERATIONS, openDeployment } from './deployment.mjs';

export { MAX_BODY, PROTOCOL_VERSION, VERSION_HEADER };

export function targetInfo(providers, dshVersion) {
  return infoBody({
    name: 'dsh (via subagent-tck adapters/dsh)',
    version: dshVersion,
    editions: ['request-controls', 'preset-composition'],
    providers,
  });
}

export class DriverServer extends JavaScriptDriverServer {
  constructor({ modelTimeoutMs = 120000, providers = [], dshVersion = '' } = {}) {
    super({ modelTimeoutMs, info: () => targetInfo(providers, dshVersion),
      open: openDeployment, operations: OPERATIONS });
  }
}
