//! The scenario file's JSON Schema (draft 2020-12), generated from the scenario's own types
//! (feature `schema`).
//!
//! Why: a scenario key's type, unit, range, default and meaning are written once, in the doc
//! comment and the `Default` of the struct that reads it; `rebound schema` prints this schema,
//! editors (Taplo / Even Better TOML) complete and check scenario files with it, and the
//! guide's reference page is rendered from it, so none of them can drift from the code.
//!
//! The structs derive [`JsonSchema`] (descriptions from their docstrings, defaults from their
//! `Default`, numeric ranges from `range(...)` attributes). The values parsed from strings have
//! the schemas below: a duration ([`HumanDuration`]), a rate, a service time, a concurrency limit
//! and a policy spec, each with the accepted forms as a `pattern` and a `description`. A
//! pattern only admits the form; the value's range is checked when the scenario is read
//! ([`crate::Scenario::from_toml`]), with an error naming the key.
//!
//! A new table of the scenario (for instance the stack advisor's `[advise]`) derives
//! `JsonSchema` the same way: `Scenario`'s derive does not compile until every field's type
//! has a schema, and the reference page and the editors pick the table up from there.
//!
//! ```
//! let schema = rebound_sim::schema::scenario();
//! assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
//! assert_eq!(schema["properties"]["seed"]["default"], 1);
//! ```

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use std::borrow::Cow;

/// The JSON Schema of a scenario file (draft 2020-12), as a JSON value.
///
/// An optional key is a plain type, never `null` (TOML has no null); descriptions are the
/// docstrings as plain text (lines joined, links to Rust items dropped).
pub fn scenario() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<crate::Scenario>();
    schema.insert("title".into(), "Rebound scenario".into());
    let mut value = schema.to_value();
    for_toml(&mut value);
    value
}

/// Rewrites `v` for TOML files: a `null` default dropped (an unset `Option`), an `Option`'s `null` alternative dropped (`"type": ["integer",
/// "null"]` becomes `"integer"`, `"anyOf": [{"$ref": R}, {"type": "null"}]` becomes `"$ref": R`)
/// and every `description` as plain text.
fn for_toml(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if let [one] = types.as_slice() {
                    let one = one.clone();
                    map.insert("type".into(), one);
                }
            }
            if let Some(Value::Array(any)) = map.get("anyOf") {
                let some: Vec<&Value> =
                    any.iter().filter(|s| s.get("type") != Some(&"null".into())).collect();
                if let [Value::Object(only)] = some.as_slice() {
                    let only = only.clone();
                    map.remove("anyOf");
                    map.extend(only);
                }
            }
            for (k, x) in map.iter_mut() {
                match x {
                    Value::String(s) if k == "description" => *s = plain(s),
                    _ => for_toml(x),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(for_toml),
        _ => {}
    }
}

/// A docstring as plain text: wrapped lines joined (paragraphs kept), and intra-doc links to
/// Rust items (`[`crate::graph`]`) dropped with their "(see …)", "; …" or "(…)", or kept as
/// code when they stand alone in a sentence.
fn plain(doc: &str) -> String {
    // A `# Default` heading reads "Default:" in running text.
    let lines: Vec<String> = doc
        .lines()
        .map(|l| l.strip_prefix("# ").map_or_else(|| l.to_string(), |h| format!("{h}:")))
        .collect();
    let mut s = lines.join("\n").replace("\n\n", "\u{0}").replace('\n', " ").replace('\u{0}', "\n\n");
    while let Some(i) = s.find("[`") {
        let Some(len) = s[i + 2..].find("`]") else { break };
        let (j, name) = (i + 2 + len + 2, s[i + 2..i + 2 + len].to_string());
        let before = &s[..i];
        let (from, to) = if let Some(p) = before.strip_suffix("(see ") {
            (p.trim_end().len(), j + usize::from(s[j..].starts_with(')')))
        } else if let Some(p) = before.strip_suffix(", see ") {
            (p.len(), j)
        } else if let Some(p) = before.trim_end().strip_suffix(';') {
            (p.len(), j)
        } else if let Some(p) = before.strip_suffix('(').filter(|_| s[j..].starts_with(')')) {
            (p.trim_end().len(), j + 1)
        } else {
            let short = name.rsplit("::").next().unwrap_or(&name).to_string();
            s.replace_range(i..j, &format!("`{short}`"));
            continue;
        };
        s.replace_range(from..to, "");
    }
    s
}

/// A regular expression for a humantime span: numbers each with a unit (`100ms`, `2.5ms`,
/// `1m30s`, `1h 30m`), or `0`. Unit names are checked when the file is read.
const DURATION_PATTERN: &str = r"^\s*(0|([0-9]+(\.[0-9]+)?\s*[a-zA-Zµ]+\s*)+)$";

/// Defines a string-typed schema named `$name` for `$ty`.
macro_rules! string_schema {
    ($ty:ty, $name:literal, $pattern:expr, $description:expr) => {
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                $name.into()
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({ "type": "string", "pattern": $pattern, "description": $description })
            }
        }
    };
}

/// The schema of a duration key (`#[serde(with = "crate::serde_duration")]`): a humantime
/// string.
#[derive(Debug)]
pub struct HumanDuration;

string_schema!(
    HumanDuration,
    "Duration",
    DURATION_PATTERN,
    "A duration: a number and a unit, or several (`100ms`, `2.5ms`, `2s`, `15m`, `1h 30m`, \
     `1day`; units ns, us, ms, s, m or min, h, d, w), or `0`."
);

/// Drops a field's `default` (an optional key whose absence means "inherited", echoed as
/// `null`: not a value a file may write).
pub(crate) fn no_default(schema: &mut Schema) {
    schema.remove("default");
}

const RATE_PATTERN: &str = r"^\s*([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*/\s*(s|m|min|h)\s*$";

string_schema!(
    crate::graph::Rate,
    "Rate",
    RATE_PATTERN,
    "A rate: `N/s`, `N/m` (or `N/min`) or `N/h` (`500/s`, `30/m`, `3600/h`), with 0 < N per \
     second <= 10000000; a `[[clients.phase]]` also takes `0/s`."
);

string_schema!(
    crate::graph::ServiceTime,
    "ServiceTime",
    r"^\s*(s5|(constant|exponential|lognormal|linear|empirical)\s*:.+)$",
    "A service time or network delay: `constant:DURATION`, `exponential:MEAN`, \
     `lognormal:p50=DURATION,p99=DURATION` (0 < p50 <= p99 <= 1h), \
     `linear:base=DURATION,per_in_flight=DURATION` (0 < base <= 1h, 0 <= per_in_flight <= 1h), \
     `empirical:p0=DURATION,...,p100=DURATION` (a quantile table from data, 2 to 16 points, \
     percentiles increasing, durations not decreasing, in (0, 1h]; sampled by linear \
     interpolation) or `s5` (S5's server, configured by `[server]`). A network delay (`latency`) takes any \
     form but `s5` and `linear`."
);

string_schema!(
    crate::graph::ConcurrencyLimit,
    "ConcurrencyLimit",
    r"^\s*(fixed:[0-9]+|(aimd|gradient2)(:.*)?)\s*$",
    "A concurrency limit: `fixed:N` (N in [1, 10000000]), \
     `aimd[:initial_limit=N,backoff_ratio=R,timeout=DURATION]` (R in [0.5, 1); defaults 10, \
     0.9, 5s) or `gradient2[:initial_limit=N,min_limit=N,max_concurrency=N,smoothing=S,\
     queue_size=N,long_window=N]` (S in (0, 1]; min_limit <= initial_limit <= \
     max_concurrency; defaults 20, 20, 200, 0.2, 4, 600), Netflix concurrency-limits' rules."
);

/// The schema of a retry policy spec ([`rebound_retry::Spec`], parsed from a string).
#[derive(Debug)]
pub struct PolicySpec;

string_schema!(
    PolicySpec,
    "PolicySpec",
    r"^\s*(constant|linear|exponential|responsive|preset)(:.*)?$",
    "A Rebound retry policy spec, `KIND[:key=value,...]` with KIND `constant`, `linear`, \
     `exponential` or `responsive` (`exponential:base=100ms,factor=2,cap=1m,jitter=full`, \
     `constant:base=100ms,budget=grpc:10:0.1`), or `preset:NAME`; the grammar is printed by \
     `rebound storm --help`."
);

#[cfg(test)]
mod tests {
    #[test]
    fn the_schema_has_every_top_level_key_with_its_default_and_range() {
        let s = super::scenario();
        let props = s["properties"].as_object().unwrap();
        let echoed = serde_json::to_value(crate::Scenario::default()).unwrap();
        for key in echoed.as_object().unwrap().keys() {
            assert!(props.contains_key(key), "{key} missing from the schema");
        }
        assert!(props.contains_key("service"), "[[service]]");
        assert_eq!(props["duration"]["default"], "2m");
        assert_eq!(props["duration"]["$ref"], "#/$defs/Duration");
        let clients = &s["$defs"]["Clients"]["properties"];
        assert_eq!(clients["count"]["minimum"], 1);
        assert_eq!(clients["count"]["maximum"], 10_000_000);
        assert_eq!(clients["count"]["default"], 1000);
        assert!(clients["count"]["description"].as_str().unwrap().starts_with("Number of clients"));
        let call = &s["$defs"]["CallConfig"];
        assert_eq!(call["required"], serde_json::json!(["to"]));
        assert!(call["properties"]["timeout"].get("default").is_none());
        assert_eq!(call["properties"]["policy"]["default"], "constant:base=100ms,max-retries=0");
        // Defaults of keys not echoed when at their default, and no `null` anywhere.
        assert_eq!(clients["arrivals"]["default"], "poisson");
        assert_eq!(s["$defs"]["ServiceConfig"]["properties"]["replicas"]["default"], 1);
        assert!(!serde_json::to_string(&s).unwrap().contains("null"));
    }

    #[test]
    fn descriptions_are_plain_text() {
        use super::plain;
        assert_eq!(plain("one S5 server (see [`crate::graph`])."), "one S5 server.");
        assert_eq!(plain("a per-user bucket; [`crate::X`]) and"), "a per-user bucket) and");
        assert_eq!(plain("or `ignore` ([`crate::retrier::RetryAfter`])."), "or `ignore`.");
        assert_eq!(plain("(`[verdict]`, see [`crate::verdict`])"), "(`[verdict]`)");
        assert_eq!(plain("is a [`Spec`] and\nwraps\n\nnext"), "is a `Spec` and wraps\n\nnext");
        assert_eq!(plain("A run.\n\n# Default\n10 s."), "A run.\n\nDefault: 10 s.");
        let text = serde_json::to_string(&super::scenario()).unwrap();
        assert!(!text.contains("[`"), "a Rust link left in a description");
    }
}
