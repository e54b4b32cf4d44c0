//! The model as a scenario file that `rebound storm` runs as it is, every number commented with
//! where it came from; what traces cannot say (workers, queues, the users' timeout) is written
//! from what was seen or the simulator's default and marked `CONFIRM`.

use crate::fmt_duration;
use crate::model::{EdgeFit, Fit, ServiceFit};
use std::fmt::Write;

/// The scenario's text.
pub fn render(fit: &Fit, command: &str) -> String {
    let mut t = String::new();
    let i = &fit.input;
    let _ = writeln!(t, "# Fitted by `{command}`");
    let _ = writeln!(
        t,
        "# from {} spans in {} traces ({} spans dropped), window {:.1} s from {}.",
        i.spans_used,
        i.traces,
        i.spans_dropped,
        fit.window.seconds,
        humantime::format_rfc3339_millis(
            std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(fit.window.start_unix_s.max(0.0))
        )
    );
    for w in i.warnings.lines() {
        let _ = writeln!(t, "# warning: {w}");
    }
    let _ = writeln!(t, "# CONFIRM marks what traces cannot tell (workers, queues, the users' timeout).");
    let secs = fit.window.seconds.ceil().clamp(1.0, 86_400.0) as u64;
    let _ = writeln!(t, "duration = \"{secs}s\"   # the traces' window");
    if secs < 5 {
        let _ = writeln!(t, "status_interval = \"{secs}s\"   # the window is shorter than the default 5 s");
    }
    let u = &fit.users;
    match &u.retries {
        Some(r) => {
            let _ = writeln!(t, "policies = [\"{}\"]   # the users': {}", r.policy, r.confidence);
        }
        None => {
            let _ = writeln!(t, "policies = [\"constant:max-retries=0\"]   # the users': the roots are server spans, the users' retries are not in the traces; CONFIRM");
        }
    }
    let _ = writeln!(t, "\n[clients]");
    let _ = writeln!(
        t,
        "rate = \"{}/s\"   # {} roots in {:.1} s",
        rate(u.rate_per_s),
        u.roots,
        fit.window.seconds
    );
    match u.dispersion {
        Some(d) => {
            let _ = writeln!(
                t,
                "arrivals = \"{}\"   # counts per {} s: variance / mean = {d:.2} (Poisson: 1; constant below 0.2)",
                u.arrivals, u.bucket_s
            );
        }
        None => {
            let _ = writeln!(
                t,
                "arrivals = \"poisson\"   # the window is too short to tell the gaps apart: Poisson"
            );
        }
    }
    let _ = writeln!(t, "calls = \"{}\"   # the service of {} of {} roots", u.entry, u.entry_roots, u.roots);
    match u.timeout_s {
        Some(s) => {
            let _ = writeln!(
                t,
                "timeout = \"{}\"   # the users' failed attempts end at this duration",
                fmt_duration(s)
            );
        }
        None => {
            let _ = writeln!(t, "timeout = \"2s\"   # CONFIRM: not in the traces (the simulator's default)");
        }
    }
    for p in &u.phases {
        let _ = writeln!(t, "\n[[clients.phase]]   # the rate moves (binary segmentation of the counts)");
        let _ = writeln!(t, "start = \"{}\"   # from the window's start", fmt_duration(p.start_s));
        let _ = writeln!(
            t,
            "end = \"{}\"   # where the next rate begins",
            fmt_duration(p.end_s.max(p.start_s + 1e-3))
        );
        let _ = writeln!(t, "rate = \"{}/s\"   # roots per second in it", rate(p.rate));
    }
    let _ = writeln!(
        t,
        "\n[outage]\nkind = \"none\"   # traces show no outage to replay; add one to ask \"what if\""
    );
    for s in &fit.services {
        service(&mut t, s, fit.edges.iter().filter(|e| e.from == s.name));
    }
    t
}

fn rate(r: f64) -> String {
    let r = if r > 0.0 { r } else { 1e-3 };
    let s = format!("{r:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn service<'a>(t: &mut String, s: &ServiceFit, edges: impl Iterator<Item = &'a EdgeFit>) {
    let _ = writeln!(t, "\n[[service]]\nname = \"{}\"", s.name);
    if s.workers_given {
        let _ = writeln!(
            t,
            "workers = {}   # --workers (the most seen at once: {})",
            s.workers, s.max_concurrency
        );
    } else {
        let _ = writeln!(
            t,
            "workers = {}   # CONFIRM: the most requests seen at once, a lower bound; give it with --workers {}=N",
            s.workers, s.name
        );
    }
    let _ = writeln!(t, "queue = 256   # CONFIRM: not in the traces (the simulator's default)");
    if let Some(o) = &s.own_time {
        let how = match (o.form, o.ks) {
            ("lognormal", Some(ks)) => format!("log-normal, KS distance {ks:.3}"),
            ("empirical", Some(ks)) => {
                format!("quantiles of the data: the log-normal's KS distance is {ks:.3}")
            }
            ("exponential", _) => "no server spans: the callers' mean attempt".into(),
            _ => "every value alike".into(),
        };
        let _ = writeln!(
            t,
            "service_time = \"{}\"   # own time of {} server spans (span minus its calls): mean {}, p99 {}; {how}",
            o.service_time,
            o.n,
            fmt_duration(o.mean_s),
            fmt_duration(o.p99_s)
        );
    }
    if s.own_error_rate > 0.0 {
        let _ = writeln!(
            t,
            "error_rate = {:.4}   # failed with their calls answered ({:.2} % failed in all)",
            s.own_error_rate,
            s.error_rate * 100.0
        );
    }
    for e in edges {
        call(t, e);
    }
}

fn call(t: &mut String, e: &EdgeFit) {
    let shares: Vec<String> = e
        .fanout
        .iter()
        .enumerate()
        .filter(|(_, &p)| p > 0.0)
        .map(|(k, p)| format!("{k}: {:.1} %", p * 100.0))
        .collect();
    let written: f64 = e.probabilities.iter().sum();
    for (n, &p) in e.probabilities.iter().enumerate() {
        let _ = writeln!(t, "[[service.call]]");
        if n == 0 {
            let _ = writeln!(
                t,
                "to = \"{}\"   # {} calls from {} requests: fan-out {:.3} (calls per request {}); written as {} call(s), call i made with probability P(calls >= i): {:.3} a request",
                e.to,
                e.calls,
                e.requests,
                e.fanout_mean,
                shares.join(", "),
                e.entries,
                written
            );
            let _ = writeln!(t, "policy = \"{}\"   # {}", e.retries.policy, e.retries.confidence);
        } else {
            let _ = writeln!(t, "to = \"{}\"   # the same callee: call {} of a request", e.to, n + 1);
            let _ = writeln!(t, "policy = \"{}\"   # as above", e.retries.policy);
        }
        if p < 1.0 {
            let _ = writeln!(
                t,
                "probability = {p:.4}   # the share of requests that made at least {} call(s)",
                n + 1
            );
        }
        match e.timeout_s {
            Some(s) if n == 0 => {
                let _ = writeln!(
                    t,
                    "timeout = \"{}\"   # {} failed attempts ended at this duration",
                    fmt_duration(s),
                    e.timeout_n
                );
            }
            Some(s) => {
                let _ = writeln!(t, "timeout = \"{}\"   # as above", fmt_duration(s));
            }
            None if n == 0 => {
                let _ = writeln!(t, "# timeout: none seen (no failed attempts at a common duration): the users' applies; CONFIRM");
            }
            None => {}
        }
    }
}
