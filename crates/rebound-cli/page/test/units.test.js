// Unit tests of the page's pure modules (`npm test`, Node's own runner): the palette's contrast
// and distinctness, and TOML text edits that keep the user's text.
import test from "node:test";
import assert from "node:assert/strict";
import { COLORS, DASHES, contrast, style, shortLabel } from "../src/palette.js";
import { setKey, addService, removeService, addCall, removeCall, keyAtLine, dropUnused } from "../src/tomltext.js";
import { parse } from "smol-toml";

test("12 colours, each at least 3:1 against white (WCAG 1.4.11), 12 distinct colour-dash pairs", () => {
  assert.equal(COLORS.length, 12);
  for (const c of COLORS) assert.ok(contrast(c) >= 3, `${c}: ${contrast(c).toFixed(2)}:1`);
  const pairs = new Set(COLORS.map((_, i) => JSON.stringify(style(i))));
  assert.equal(pairs.size, 12);
  for (let i = 1; i < 12; i++) assert.notDeepEqual(style(i).dash, style(i - 1).dash, "neighbours differ by dash");
  assert.equal(DASHES.length, 4);
});

test("short labels", () => {
  assert.equal(shortLabel("exponential:base=100ms,factor=2,jitter=full,max-retries=3"), "exp 100ms ×2 full r3");
  assert.equal(shortLabel("constant:base=100ms,budget=grpc:10:0.1"), "fixed 100ms budget");
});

const TEXT = `# a comment kept
duration = "120s"   # two minutes
policies = [
    "constant:base=100ms",
]

[clients]
count = 10

[[service]]
name = "api"
[[service.call]]
to = "db"

[[service]]
name = "db"   # the database
workers = 8

[outage]
service = "db"
`;

test("a form edit changes one value and keeps comments and order", () => {
  let t = setKey(TEXT, {}, "duration", "60s");
  assert.ok(t.includes(`duration = "60s"  # two minutes`));
  t = setKey(t, { service: 1 }, "workers", 4);
  t = setKey(t, { service: 0, call: 0 }, "policy", "constant:max-retries=2");
  t = setKey(t, {}, "policies", ["a:b", "c:d"]);
  t = setKey(t, { table: "clients" }, "count", undefined);
  t = setKey(t, { table: "verdict" }, "window", "5s");
  const o = parse(t);
  assert.equal(o.duration, "60s");
  assert.deepEqual(o.policies, ["a:b", "c:d"]);
  assert.equal(o.service[1].workers, 4);
  assert.equal(o.service[0].call[0].policy, "constant:max-retries=2");
  assert.equal(o.clients.count, undefined);
  assert.equal(o.verdict.window, "5s");
  assert.ok(t.startsWith("# a comment kept\n") && t.includes(`name = "db"   # the database`));
});

test("services and calls added and removed", () => {
  let t = addService(TEXT, "cache", { workers: 2 });
  t = addCall(t, 0, "cache");
  let o = parse(t);
  assert.deepEqual(o.service.map((s) => s.name), ["api", "db", "cache"]);
  assert.deepEqual(o.service[0].call.map((c) => c.to), ["db", "cache"]);
  assert.equal(o.outage.service, "db");
  t = removeCall(t, 0, 0);
  t = removeService(t, 1);
  o = parse(t);
  assert.deepEqual(o.service.map((s) => s.name), ["api", "cache"]);
  assert.deepEqual(o.service[0].call.map((c) => c.to), ["cache"]);
  assert.deepEqual(keyAtLine(TEXT, 3), { where: {}, key: "policies" });
});

test("the [server] table goes once the stack has a service; comments of the next table stay", () => {
  const s5 = `seed = 1\n\n[clients]\ncount = 10\n\n[server]\nconcurrency_limit = 30\n\n# the incident\n[outage]\nkind = "pause"\n`;
  const t = addService(s5, "svc1", { workers: 8 });
  const o = parse(t);
  assert.equal(o.server, undefined);
  assert.deepEqual(o.service.map((s) => s.name), ["svc1"]);
  assert.equal(o.clients.count, 10);
  assert.ok(t.includes("# the incident\n[outage]"), t);
  assert.equal(dropUnused(s5), s5, "no service: [server] is used");
});
