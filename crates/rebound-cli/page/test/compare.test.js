// Unit tests of the comparison's pure parts: the difference's interval and readable keys.
import test from "node:test";
import assert from "node:assert/strict";
import { difference, flatten } from "../src/compare.js";

test("the difference of two estimates with intervals (MOVER): Newcombe's worked example", () => {
  // Newcombe (1998), Table II, example (a): 56/70 against 48/80, Wilson intervals
  // 0.6920–0.8760 and 0.4900–0.7000; method 10 gives 0.0524 to 0.3339 for p1 − p2.
  const a = { estimate: 48 / 80, low: 0.49, high: 0.7 }, b = { estimate: 56 / 70, low: 0.692, high: 0.876 };
  const d = difference(a, b);
  assert.ok(Math.abs(d.estimate - 0.2) < 1e-9);
  assert.ok(Math.abs(d.low - 0.0524) < 0.002, `${d.low}`);
  assert.ok(Math.abs(d.high - 0.3339) < 0.002, `${d.high}`);
  assert.deepEqual(difference({ estimate: 1 }, { estimate: 3 }), { estimate: 2 });
});

test("scenario keys flatten to text, never JSON", () => {
  const f = flatten({ seed: 1, policies: ["a:b", "c:d"], service: [{ name: "db", workers: 8, call: [{ to: "x", policy: "p" }] }], clients: { count: 10 } });
  assert.deepEqual(f, { seed: "1", policies: "a:b, c:d", "service[db].name": "db", "service[db].workers": "8", "service[db].call[to x].to": "x", "service[db].call[to x].policy": "p", "clients.count": "10" });
});
