//! Synthetic traces of a known stack, for the fit's benchmark and tests: users → front → api →
//! db with Poisson arrivals, log-normal own times, a fan-out of 1 or 2 calls from api to db,
//! db failing at a given rate and api retrying it with exponential backoff (no jitter). Written
//! as OTLP JSON lines, one `ExportTraceServiceRequest` per batch, as a collector's file
//! exporter writes them.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{status::StatusCode, ResourceSpans, ScopeSpans, Span, Status};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::io::Write;

/// The stack generated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stack {
    /// Users' requests per second (Poisson).
    pub rate: f64,
    /// Median own time of front, api and db, in seconds (σ of the logs: 0.5).
    pub p50: [f64; 3],
    /// Share of api requests that call db twice (the others once).
    pub two_calls: f64,
    /// Probability that a db attempt fails (HTTP 503).
    pub db_errors: f64,
    /// api's retry delay before retry 1, doubling after (seconds); at most 3 retries.
    pub base: f64,
    /// The seed.
    pub seed: u64,
}

impl Default for Stack {
    fn default() -> Stack {
        Stack { rate: 200.0, p50: [0.002, 0.005, 0.003], two_calls: 0.5, db_errors: 0.2, base: 0.01, seed: 1 }
    }
}

const T0: u64 = 1_764_360_000_000_000_000;
const SIGMA: f64 = 0.5;

struct Gen {
    rng: SmallRng,
    trace: u128,
    next_id: u64,
    spans: [Vec<Span>; 3],
}

impl Gen {
    fn lognormal(&mut self, p50: f64) -> u64 {
        let (u1, u2): (f64, f64) = (self.rng.random::<f64>().max(1e-300), self.rng.random());
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        (p50 * (SIGMA * z).exp() * 1e9) as u64
    }

    #[allow(clippy::too_many_arguments)]
    fn span(
        &mut self,
        svc: usize,
        parent: u64,
        kind: i32,
        start: u64,
        end: u64,
        failed: bool,
        resend: Option<u32>,
    ) -> u64 {
        self.next_id += 1;
        let mut attributes = vec![kv_int("http.response.status_code", if failed { 503 } else { 200 })];
        if let Some(r) = resend {
            attributes.push(kv_int("http.request.resend_count", r as i64));
        }
        self.spans[svc].push(Span {
            trace_id: self.trace.to_be_bytes().to_vec(),
            span_id: self.next_id.to_be_bytes().to_vec(),
            parent_span_id: if parent == 0 { Vec::new() } else { parent.to_be_bytes().to_vec() },
            name: ["GET /", "GET /api", "SELECT"][svc].into(),
            kind,
            start_time_unix_nano: start,
            end_time_unix_nano: end,
            attributes,
            status: failed.then(|| Status { code: StatusCode::Error as i32, message: String::new() }),
            ..Span::default()
        });
        self.next_id
    }
}

fn kv_int(key: &str, v: i64) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(any_value::Value::IntValue(v)) }),
        ..KeyValue::default()
    }
}

/// Writes about `spans` spans (whole traces) as OTLP JSON lines of about `batch` spans each.
///
/// # Errors
/// `out` cannot be written.
pub fn write(stack: &Stack, spans: u64, batch: usize, mut out: impl Write) -> std::io::Result<u64> {
    let mut g =
        Gen { rng: SmallRng::seed_from_u64(stack.seed), trace: 0, next_id: 0, spans: Default::default() };
    let (mut t, mut written) = (T0, 0u64);
    while written < spans {
        t += (-(1.0 - g.rng.random::<f64>()).ln() / stack.rate * 1e9) as u64;
        g.trace += 1;
        let n = one_trace(&mut g, stack, t);
        written += n;
        if g.spans.iter().map(Vec::len).sum::<usize>() >= batch || written >= spans {
            flush(&mut g, &mut out)?;
        }
    }
    Ok(written)
}

/// One users' request: front → api → db (1 or 2 calls, each retried up to 3 times).
fn one_trace(g: &mut Gen, s: &Stack, t: u64) -> u64 {
    let before: usize = g.spans.iter().map(Vec::len).sum();
    let front_own = g.lognormal(s.p50[0]);
    let api_own = g.lognormal(s.p50[1]);
    let front_id = g.next_id + 1;
    // Times are laid out first, spans written after (ids: front server, its client, api server).
    let call_start = t + front_own;
    let mut api_t = call_start + 200_000 + api_own;
    let mut db_spans = Vec::new();
    let calls = if g.rng.random::<f64>() < s.two_calls { 2 } else { 1 };
    for _ in 0..calls {
        for attempt in 0..4u32 {
            let db = g.lognormal(s.p50[2]);
            let failed = g.rng.random::<f64>() < s.db_errors;
            db_spans.push((api_t, api_t + db + 200_000, failed, attempt));
            api_t += db + 200_000;
            if !failed || attempt == 3 {
                break;
            }
            api_t += (s.base * 2f64.powi(attempt as i32) * 1e9) as u64;
        }
    }
    let api_end = api_t + 100_000;
    let end = api_end + 100_000;
    g.span(0, 0, 2, t, end, false, None);
    let client = g.span(0, front_id, 3, call_start, api_end + 50_000, false, None);
    let api = g.span(1, client, 2, call_start + 100_000, api_end, false, None);
    for (a, b, failed, attempt) in db_spans {
        let c = g.span(1, api, 3, a, b, failed, Some(attempt));
        g.span(2, c, 2, a + 100_000, b - 100_000, failed, None);
    }
    (g.spans.iter().map(Vec::len).sum::<usize>() - before) as u64
}

fn flush(g: &mut Gen, out: &mut impl Write) -> std::io::Result<()> {
    let resource_spans = ["front", "api", "db"]
        .iter()
        .zip(g.spans.iter_mut())
        .filter(|(_, s)| !s.is_empty())
        .map(|(name, spans)| ResourceSpans {
            resource: Some(Resource {
                attributes: vec![KeyValue {
                    key: "service.name".into(),
                    value: Some(AnyValue { value: Some(any_value::Value::StringValue((*name).into())) }),
                    ..KeyValue::default()
                }],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans { spans: std::mem::take(spans), ..ScopeSpans::default() }],
            ..ResourceSpans::default()
        })
        .collect();
    serde_json::to_writer(&mut *out, &ExportTraceServiceRequest { resource_spans })?;
    out.write_all(b"\n")
}
