//! The Prometheus text exposition (<https://prometheus.io/docs/instrumenting/exposition_formats/>)
//! of a service's counters, and a reader of one sample for tests and scrapers.

use super::metrics::{CallCounters, ServiceCounters, ShedBy, ATTEMPT_OUTCOMES, BUCKETS};
use std::fmt::Write;
use std::sync::atomic::Ordering::Relaxed;

/// A label value as the text format writes it: `\\`, `"` and a line feed escaped.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

impl ServiceCounters {
    /// The Prometheus text exposition of service `service`'s replica `replica` and its calls
    /// (`(callee, counters)`), with `rebound_service_info{service, replica} 1` first so that a
    /// scraper can check whom it reads.
    pub fn render(&self, service: &str, replica: u32, calls: &[(&str, &CallCounters)]) -> String {
        let mut out = String::new();
        let head = |out: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        };
        let name = "rebound_service_info";
        head(&mut out, name, "gauge", "Which service and replica this process is (always 1).");
        let _ = writeln!(out, "{name}{{service=\"{}\",replica=\"{replica}\"}} 1", escape(service));
        let name = "rebound_service_arrivals_total";
        head(
            &mut out,
            name,
            "counter",
            "Attempts that reached the service, by x-rebound-attempt (1: first).",
        );
        let _ = writeln!(out, "{name}{{kind=\"first\"}} {}", self.first.load(Relaxed));
        let _ = writeln!(out, "{name}{{kind=\"retry\"}} {}", self.retry.load(Relaxed));
        let name = "rebound_service_answers_total";
        head(&mut out, name, "counter", "Requests answered, by outcome.");
        let shed: u64 = self.shed.iter().map(|s| s.load(Relaxed)).sum();
        for (label, n) in [
            ("ok", self.answers[0].load(Relaxed)),
            ("error", self.answers[1].load(Relaxed)),
            ("shed", shed),
            ("expired", self.answers[3].load(Relaxed)),
        ] {
            let _ = writeln!(out, "{name}{{outcome=\"{label}\"}} {n}");
        }
        let name = "rebound_service_shed_total";
        head(&mut out, name, "counter", "Arrivals shed, by the defense that shed them.");
        for (by, n) in ShedBy::ALL.iter().zip(&self.shed) {
            let _ = writeln!(out, "{name}{{by=\"{}\"}} {}", by.label(), n.load(Relaxed));
        }
        head(&mut out, "rebound_service_queue", "gauge", "Requests waiting for a worker.");
        let _ = writeln!(out, "rebound_service_queue {}", self.queue.load(Relaxed));
        head(
            &mut out,
            "rebound_service_in_flight",
            "gauge",
            "Requests in the service, queued or in service.",
        );
        let _ = writeln!(out, "rebound_service_in_flight {}", self.in_flight.load(Relaxed));
        self.render_latency(&mut out);
        let name = "rebound_call_attempts_total";
        head(&mut out, name, "counter", "Attempts at each callee, by outcome.");
        for (to, c) in calls {
            let to = escape(to);
            for (i, (_, label)) in ATTEMPT_OUTCOMES.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "{name}{{to=\"{to}\",outcome=\"{label}\"}} {}",
                    c.attempts[i].load(Relaxed)
                );
            }
        }
        let name = "rebound_call_timedout_by_replica_total";
        head(&mut out, name, "counter", "Attempts at each callee replica that timed out.");
        for (to, c) in calls {
            let to = escape(to);
            let at = c.timedout_at.lock().unwrap_or_else(|e| e.into_inner()).clone();
            for (replica, n) in at.iter().enumerate() {
                let _ = writeln!(out, "{name}{{to=\"{to}\",replica=\"{replica}\"}} {n}");
            }
        }
        let name = "rebound_call_requests_total";
        head(&mut out, name, "counter", "Calls to each callee after their retries, by outcome.");
        for (to, c) in calls {
            let to = escape(to);
            let _ = writeln!(out, "{name}{{to=\"{to}\",outcome=\"ok\"}} {}", c.ok.load(Relaxed));
            let _ = writeln!(out, "{name}{{to=\"{to}\",outcome=\"failed\"}} {}", c.failed.load(Relaxed));
        }
        out
    }

    fn render_latency(&self, out: &mut String) {
        let name = "rebound_service_latency_seconds";
        let _ = writeln!(out, "# HELP {name} Arrival to answer, sheds included.\n# TYPE {name} histogram");
        let mut cum = 0;
        for (b, n) in BUCKETS.iter().zip(&self.buckets) {
            cum += n.load(Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{b:.6e}\"}} {cum}");
        }
        let count: u64 = self.answers.iter().map(|a| a.load(Relaxed)).sum();
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let _ = writeln!(out, "{name}_sum {}", self.sum_ns.load(Relaxed) as f64 / 1e9);
        let _ = writeln!(out, "{name}_count {count}");
    }
}

/// The value of the sample `name{labels}` (labels as written, e.g. `kind="first"`; empty for
/// none) in a Prometheus text exposition, if present.
pub fn labelled(text: &str, name: &str, labels: &str) -> Option<f64> {
    let key = if labels.is_empty() { name.to_string() } else { format!("{name}{{{labels}}}") };
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let (n, v) = l.rsplit_once(' ')?;
        (n == key).then(|| v.trim().parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::metrics::{AttemptOutcome, Outcome};
    use std::time::Duration;

    #[test]
    fn buckets_grow_by_ten_percent_to_two_minutes() {
        assert_eq!(BUCKETS[0], 0.000_5);
        assert!(BUCKETS.windows(2).all(|w| (w[1] / w[0] - 1.1).abs() < 1e-9));
        assert!(BUCKETS[BUCKETS.len() - 1] >= 120.0 && BUCKETS[BUCKETS.len() - 2] < 120.0);
    }

    #[test]
    fn exposition_names_the_contracts_series() {
        let c = ServiceCounters::default();
        c.arrival(false);
        c.arrival(true);
        c.answer(Outcome::Ok, Duration::from_millis(3));
        c.answer(Outcome::Shed(ShedBy::QueueFull), Duration::from_micros(100));
        let call = CallCounters::default();
        call.attempt(AttemptOutcome::TimedOut);
        call.timed_out_at(1);
        call.request(false);
        let text = c.render("api", 2, &[("db", &call)]);
        assert_eq!(labelled(&text, "rebound_service_info", "service=\"api\",replica=\"2\""), Some(1.0));
        assert_eq!(escape(r#"a"b\c"#), r#"a\"b\\c"#);
        let at = |n, l| labelled(&text, n, l);
        assert_eq!(at("rebound_service_arrivals_total", "kind=\"retry\""), Some(1.0));
        assert_eq!(at("rebound_service_answers_total", "outcome=\"shed\""), Some(1.0));
        assert_eq!(at("rebound_service_shed_total", "by=\"queue_full\""), Some(1.0));
        assert_eq!(at("rebound_service_latency_seconds_count", ""), Some(2.0));
        assert_eq!(at("rebound_service_latency_seconds_bucket", "le=\"5.000000e-4\""), Some(1.0));
        assert_eq!(at("rebound_call_attempts_total", "to=\"db\",outcome=\"timedout\""), Some(1.0));
        assert_eq!(at("rebound_call_requests_total", "to=\"db\",outcome=\"failed\""), Some(1.0));
        let by_replica = "rebound_call_timedout_by_replica_total";
        assert_eq!(at(by_replica, "to=\"db\",replica=\"0\""), Some(0.0));
        assert_eq!(at(by_replica, "to=\"db\",replica=\"1\""), Some(1.0));
    }
}
