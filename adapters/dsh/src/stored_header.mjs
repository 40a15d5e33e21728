// put-session-header: plant a stored session header the way DSH stores it, so that DSH's own
// session-file reader decides what a malformed header means (DE-06, docs/rules.md#DE-06).
//
// DSH's JSONL backend (@deepseek-ai/dsh-session-persistence-jsonl) keeps one log per session
// whose first line is the header record ({type: 'session', version, id, createdAt,
// parentSession?, delegationDepth, ...}, see toHeaderLine there). The kit's header is written
// into that first line: delegationDepth (and parentSession) as given, everything else as DSH
// wrote it. A value JSON cannot spell (-0, NaN, +-Infinity) is written as the token a JSON
// reader would meet (`-0`, `NaN`, ...), so DSH's reader (isHeaderLine / parseHeaderRecord) is
// what refuses it on resume, never the adapter.

import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Code, TckError } from './errors.mjs';
import { isContinuableChild } from './continuable.mjs';

/** The JSON text of a stored depth: JSON where it can be, else the raw number token. */
function depthToken(value) {
  if (typeof value === 'number') {
    if (Object.is(value, -0)) return '-0';
    if (!Number.isFinite(value)) return String(value); // NaN, Infinity, -Infinity
  }
  return JSON.stringify(value === undefined ? null : value);
}

function* logFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* logFiles(path);
    else if (entry.name.endsWith('.jsonl')) yield path;
  }
}

/** The log file whose header line names `session`, with its parsed header line. */
function findLog(root, session) {
  for (const path of logFiles(root)) {
    const text = readFileSync(path, 'utf8');
    const newline = text.indexOf('\n');
    let line;
    try {
      line = JSON.parse(newline < 0 ? text : text.slice(0, newline));
    } catch {
      continue;
    }
    if (line?.type === 'session' && line.id === session) return { path, text, newline, line };
  }
  return undefined;
}

/** Rewrite the stored header line of `header.session` in DSH's JSONL store. */
export async function putSessionHeader(host, header) {
  // DSH batches writes: flush every live session so the log on disk is the one DSH reads.
  const flush = () => Promise.all(host.ctx.agents.list().map((agent) => host.ctx.sessions
    .flush(agent.session).catch(() => {})));
  await host.refuseUnstored(header.session, 'plant a stored header over');
  await flush();
  if (findLog(host.storeDir, header.session) === undefined) {
    throw new TckError(Code.UNKNOWN_SESSION, `DSH's session store (JSONL) holds no session `
      + `${JSON.stringify(header.session)}: a header can be planted only over a stored session`,
    { session: header.session });
  }
  // DSH reads a stored header only when it loads a session, and keeps one live owner per
  // session: a live agent on this session is released first (as a restart would), so nothing
  // writes the log after the header is planted and a resume loads what was planted.
  await host.release(header.session);
  await flush();
  const found = findLog(host.storeDir, header.session);
  if (found === undefined) {
    throw new TckError(Code.UNKNOWN_SESSION, `DSH's log of session ${JSON.stringify(header.session)}`
      + ' vanished when its agent was released', { session: header.session });
  }
  const { path, text, newline, line } = found;
  const { delegationDepth: _old, ...rest } = line;
  if (header.parent === null) delete rest.parentSession;
  else rest.parentSession = header.parent;
  const body = JSON.stringify(rest);
  const record = `${body.slice(0, -1)},"delegationDepth":${depthToken(header.delegationDepth)}}`;
  const tail = newline < 0 ? '\n' : text.slice(newline);
  writeFileSync(path, record + (isContinuableChild(host, header.session)
    ? plantDescriptor(host, header, tail) : tail));
}

/** The kit's descriptor written into the continuable child's subagent/descriptor event (the
 * one DSH's coldResume folds): its composition keys as given, DSH's own keys (version, mode,
 * label, agentProvider, agentModel) as DSH wrote them, so DSH's descriptor parser decides. */
function plantDescriptor(host, header, tail) {
  if (header.descriptor === null || typeof header.descriptor !== 'object') return tail;
  const lines = tail.split('\n');
  const at = lines.findIndex((text) => text.includes('"subagent/descriptor"'));
  if (at < 0) return tail;
  const event = JSON.parse(lines[at]);
  const kept = {};
  for (const key of ['version', 'mode', 'label', 'agentProvider', 'agentModel']) {
    if (Object.hasOwn(event.data, key)) kept[key] = event.data[key];
  }
  event.data = { ...kept, ...header.descriptor };
  lines[at] = JSON.stringify(event);
  host.descriptors.set(header.session, header.descriptor);
  return lines.join('\n');
}
