// The session store: durable session headers and transcripts (DE-01, DE-06, DE-09, FR-04).
//
// Each session is kept as serialized text (the wire codec, so a raw stored depth such as -0 or
// NaN survives as written), never as a live object: what a cold resume reads is what was
// written, nothing shared with a running agent. A header's delegationDepth is kept raw; it is
// validated where it is read (resume, and every start from the session's agent).

import { Code, TckError } from './errors.mjs';
import { dumps, loads } from './wire.mjs';

export class SessionStore {
  #headers = new Map(); // session id -> serialized header, in first-write order
  #transcripts = new Map(); // session id -> serialized messages

  /** Write a header as given (raw depth kept), creating the session when it is new. */
  putHeader(header) {
    this.#headers.set(header.session, dumps({
      session: header.session,
      parent: header.parent ?? null,
      delegationDepth: Object.hasOwn(header, 'delegationDepth') ? header.delegationDepth : 0,
      descriptor: header.descriptor ?? null,
    }));
  }

  header(session) {
    const text = this.#headers.get(session);
    if (text === undefined) {
      throw new TckError(Code.UNKNOWN_SESSION, `there is no stored session `
        + `${JSON.stringify(session)}: use a session id from sessions()`, { session });
    }
    return loads(text);
  }

  has(session) {
    return this.#headers.has(session);
  }

  transcript(session) {
    const text = this.#transcripts.get(session);
    return text === undefined ? [] : loads(text);
  }

  saveTranscript(session, messages) {
    if (this.#headers.has(session)) this.#transcripts.set(session, dumps(messages));
  }

  /** Every stored header, in the order the sessions were first written. */
  headers() {
    return [...this.#headers.values()].map((text) => loads(text));
  }
}
