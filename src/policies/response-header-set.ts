/**
 * The headers the policies put on every response (request id, HSTS, CORS, rate-limit counts, a
 * version's own headers), gathered per request as plain pairs before the handler runs. The
 * handlers and the error renderer build their response once with them (`respond`), so no
 * `Headers` object is made and changed per policy: on Node that keeps @hono/node-server on its
 * fast path of plain header objects. A response built any other way (a redirect, a preflight, a
 * route outside the core) gets them set on its `Headers` when the policies are done, as before.
 */
export class ResponseHeaders {
  /**
   * Lower-case names, so a policy's header replaces a handler's of the same name in any spelling.
   * The policies name theirs in lower case already (the type says so), so nothing is lowered per
   * request; a handler's own names are lowered in `merged`.
   * A removed name keeps its member, `undefined`: deleting a member would turn the object into a
   * dictionary, slower to write and to walk for the rest of the request.
   */
  private readonly fields: Record<string, string | undefined> = {};
  /** Names whose value is added after a handler's own rather than replacing it (rare: v1's `Link`). */
  private appended: Set<string> | undefined;
  /** Names removed from the response whoever set them (rare: `Vary` on an error). */
  private removed: Set<string> | undefined;
  /** The last response `respond` built with these headers, and its body's size in bytes. */
  built: Response | undefined;
  builtBytes: number | undefined;

  /** Replaces any value of `name`, the handler's included. */
  set(key: Lowercase<string>, value: string): void {
    this.fields[key] = value;
    this.appended?.delete(key);
  }

  /** Removes `name`, and the handler's value of it too: the response goes without it. */
  delete(key: Lowercase<string>): void {
    (this.removed ??= new Set()).add(key);
    if (key in this.fields) this.fields[key] = undefined;
    this.appended?.delete(key);
  }

  /** Adds a value after any other of `name` (`Link`): both survive, comma-joined as `Headers` does. */
  append(key: Lowercase<string>, value: string): void {
    const known = this.fields[key];
    if (known === undefined) (this.appended ??= new Set()).add(key);
    this.fields[key] = known === undefined ? value : `${known}, ${value}`;
  }

  /** `own` (a handler's headers, any spelling) with these merged in, as one plain object. */
  merged(own: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    const { fields, appended, removed } = this;
    for (const name in own) {
      const key = name.toLowerCase();
      if (!removed?.has(key)) out[key] = own[name]!;
    }
    for (const key in fields) {
      const value = fields[key];
      if (value === undefined) continue;
      const before = appended?.has(key) ? out[key] : undefined;
      out[key] = before === undefined ? value : `${before}, ${value}`;
    }
    return out;
  }

  /** Sets them on a response built without them. */
  applyTo(headers: Headers): void {
    if (this.removed) for (const key of this.removed) headers.delete(key);
    for (const key in this.fields) {
      const value = this.fields[key];
      if (value === undefined) continue;
      if (this.appended?.has(key)) headers.append(key, value);
      else headers.set(key, value);
    }
  }
}
