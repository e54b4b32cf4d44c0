// Edits of the scenario's TOML *text*: the text is the single source of truth, so a form edit
// changes one key's value in place (comments, order and spacing kept) and never re-serialises
// the document. Reading values is smol-toml's job; this module only finds where keys live.

// A place in the document: {} top level, {table: "clients"}, {service: i}, {service: i, call: j}.
const HEADER = /^\s*(\[\[?)\s*([A-Za-z0-9_.\-]+)\s*\]\]?\s*(#.*)?$/;
const KEY = /^\s*([A-Za-z0-9_\-]+)\s*=/;

// Bracket depth a line adds, ignoring brackets inside strings and comments.
function depthOf(line) {
  let d = 0, quote = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) { if (c === "\\" && quote === '"') i++; else if (c === quote) quote = null; continue; }
    if (c === '"' || c === "'") quote = c;
    else if (c === "#") break;
    else if (c === "[" || c === "{") d++;
    else if (c === "]" || c === "}") d--;
  }
  return d;
}

/** The document's sections, each {where, header, start, end, keys: {name: [first, last]}}. */
export function sections(text) {
  const lines = text.split("\n");
  const out = [{ where: {}, header: -1, start: 0, end: lines.length, keys: {} }];
  let svc = -1, call = -1, open = 0, current = out[0];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (open > 0) { open += depthOf(line); current.keys[current.last][1] = i; continue; }
    const h = HEADER.exec(line);
    if (h) {
      let where;
      if (h[1] === "[[" && h[2] === "service") { svc++; call = -1; where = { service: svc }; }
      else if (h[1] === "[[" && h[2] === "service.call") { call++; where = { service: svc, call }; }
      else where = { table: h[2] };
      current.end = i;
      current = { where, header: i, start: i + 1, end: lines.length, keys: {} };
      out.push(current);
      continue;
    }
    const k = KEY.exec(line);
    if (k) {
      current.keys[k[1]] = [i, i];
      current.last = k[1];
      open = Math.max(0, depthOf(line.slice(line.indexOf("=") + 1)));
    }
  }
  return out;
}

const same = (a, b) => a.table === b.table && a.service === b.service && a.call === b.call;
const find = (text, where) => sections(text).find((s) => same(s.where, where));

/** The section and key on (0-based) line `n`: {where, key} or null. */
export function keyAtLine(text, n) {
  for (const s of sections(text)) {
    for (const [key, [a, b]] of Object.entries(s.keys)) if (n >= a && n <= b) return { where: s.where, key };
  }
  return null;
}

/** `value` as TOML: strings quoted, numbers and booleans bare, arrays of strings one per line. */
export function tomlValue(value) {
  if (Array.isArray(value)) return value.length ? "[\n" + value.map((v) => `    ${tomlValue(v)},\n`).join("") + "]" : "[]";
  if (typeof value === "string") return JSON.stringify(value);
  return String(value);
}

/** `text` with `key` in `where` set to `value` (TOML-formatted here), or removed when `value`
 * is undefined. A missing section is appended; a missing key goes after the section's last. */
export function setKey(text, where, key, value) {
  const lines = text.split("\n");
  const s = find(text, where);
  const rendered = value === undefined ? null : `${key} = ${tomlValue(value)}`;
  if (s && s.keys[key]) {
    const [a, b] = s.keys[key];
    const old = lines[a];
    const comment = a === b && rendered ? trailingComment(old) : "";
    const indent = old.match(/^\s*/)[0];
    lines.splice(a, b - a + 1, ...(rendered ? [indent + rendered + comment] : []));
    return lines.join("\n");
  }
  if (!rendered) return text;
  if (s) {
    const ends = Object.values(s.keys).map((r) => r[1]);
    const at = ends.length ? Math.max(...ends) + 1 : s.header + 1;
    lines.splice(at, 0, rendered);
    return lines.join("\n");
  }
  if (where.table) return text.replace(/\n*$/, "") + `\n\n[${where.table}]\n${rendered}\n`;
  throw new Error("no such service or call");
}

function trailingComment(line) {
  let quote = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) { if (c === "\\" && quote === '"') i++; else if (c === quote) quote = null; continue; }
    if (c === '"' || c === "'") quote = c;
    else if (c === "#") return "  " + line.slice(i).trimEnd();
  }
  return "";
}

// The lines of service i: its header to the next header that is not one of its calls.
function serviceSpan(text, i) {
  const all = sections(text);
  const own = all.filter((s) => s.where.service === i);
  if (!own.length) throw new Error(`no service ${i + 1}`);
  return [own[0].header, own[own.length - 1].end];
}

/** `text` without tables the simulator ignores: `[server]` (S5's single server) once the
 * stack has `[[service]]`s. Comments inside the table go with it; the rest is kept as written. */
export function dropUnused(text) {
  const all = sections(text);
  const server = all.find((s) => s.where.table === "server");
  if (!server || !all.some((s) => s.where.service !== undefined)) return text;
  const lines = text.split("\n");
  let end = server.end;
  // Comment lines right above the next header are that table's.
  while (end > server.header + 1 && /^\s*#/.test(lines[end - 1])) end--;
  while (end < lines.length && lines[end].trim() === "") end++;
  lines.splice(server.header, end - server.header);
  return lines.join("\n");
}

/** `text` with a new `[[service]]` (`name`, and the keys in `keys`) after the last one; the
 * `[server]` table, unused from then on, dropped. */
export function addService(text, name, keys) {
  return dropUnused(appendService(text, name, keys));
}

function appendService(text, name, keys) {
  const body = [`[[service]]`, `name = ${tomlValue(name)}`, ...Object.entries(keys).map(([k, v]) => `${k} = ${tomlValue(v)}`)];
  const all = sections(text).filter((s) => s.where.service !== undefined);
  const lines = text.split("\n");
  if (!all.length) return text.replace(/\n*$/, "") + "\n\n" + body.join("\n") + "\n";
  let at = all[all.length - 1].end;
  while (at > 0 && lines[at - 1].trim() === "") at--;
  lines.splice(at, 0, "", ...body, ...(at < lines.length ? [""] : []));
  return lines.join("\n");
}

/** `text` without service `i` (0-based) and its calls. */
export function removeService(text, i) {
  const [a, b] = serviceSpan(text, i);
  const lines = text.split("\n");
  lines.splice(a, b - a);
  return lines.join("\n");
}

/** `text` with a new `[[service.call]]` to `to` at the end of service `i`'s calls. */
export function addCall(text, i, to) {
  const [, b] = serviceSpan(text, i);
  const lines = text.split("\n");
  let at = b;
  while (at > 0 && lines[at - 1].trim() === "") at--;
  lines.splice(at, 0, "[[service.call]]", `to = ${tomlValue(to)}`);
  return lines.join("\n");
}

/** `text` without call `j` of service `i`. */
export function removeCall(text, i, j) {
  const s = find(text, { service: i, call: j });
  if (!s) throw new Error(`no call ${j + 1} of service ${i + 1}`);
  const lines = text.split("\n");
  lines.splice(s.header, s.end - s.header);
  return lines.join("\n");
}
