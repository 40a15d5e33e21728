// The same module as implementations/javascript/src/gateway.mjs: the wire-level pieces are shared
// with the JavaScript implementation, the runtime behind them is DSH.
export * from '../../../implementations/javascript/src/gateway.mjs';
