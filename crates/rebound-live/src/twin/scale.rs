//! `--scale F`: a scenario `F` times lighter (or heavier), so that any stack fits a small
//! machine's loopback.
//!
//! Why both sides: dividing only the users' load leaves every service idle and no storm can
//! build; dividing only capacity overloads it. Dividing offered load and capacity by the same
//! `F` keeps every service's utilisation (ρ = λ·S / c) and every ratio the verdicts read.
//!
//! The rule, one choice for every scenario:
//! - **load ÷ F**: closed loop, `clients.count` (and each phase's `count`) ÷ F, rounded, at
//!   least 1 (a phase's may be 0); open loop, `clients.rate` (and each phase's `rate`) ÷ F.
//! - **capacity ÷ F by service times × F**: every `[[service]]`'s `service_time` (every
//!   parameter of it: `constant`, `exponential`'s mean, `lognormal`'s p50 and p99, `linear`'s
//!   base and per-request step) and `[server] min_delay` for `s5`; workers and queues keep
//!   their sizes (a worker count cannot be divided without rounding away the model).
//! - **rate limits ÷ F**: `rate_limit` ÷ F; `burst` ÷ F, rounded, at least 1.
//!
//! Timeouts, backoff delays and the outage's times are not scaled: at large `F` a service's
//! slower answers come nearer its callers' timeouts than in the original (the test in this
//! module shows the arithmetic).

use crate::LiveError;
use rebound_sim::graph::{Rate, ServiceTime};
use rebound_sim::Scenario;
use std::time::Duration;

/// The range `--scale` accepts: [`MIN_SCALE`, `MAX_SCALE`].
pub const MIN_SCALE: f64 = 0.01;
/// See [`MIN_SCALE`].
pub const MAX_SCALE: f64 = 1000.0;

/// `scenario` with its load and capacity divided by `f` (see the module docs).
///
/// # Errors
/// [`LiveError::Invalid`] naming `--scale` when `f` is not in [[`MIN_SCALE`], [`MAX_SCALE`]],
/// or a scaled value that leaves its valid range (a rate above 10,000,000/s, a service time
/// above an hour).
pub fn scale(scenario: &Scenario, f: f64) -> Result<Scenario, LiveError> {
    if !(MIN_SCALE..=MAX_SCALE).contains(&f) {
        return Err(LiveError::Invalid {
            field: "--scale",
            value: f.to_string(),
            expected: "a factor in [0.01, 1000]",
        });
    }
    let mut s = scenario.clone();
    if f == 1.0 {
        return Ok(s);
    }
    let count = |n: u32, min: u32| ((f64::from(n) / f).round() as u32).max(min);
    if s.clients.rate.is_none() {
        s.clients.count = count(s.clients.count, 1);
    }
    s.clients.rate = s.clients.rate.map(|r| Rate { per_s: r.per_s / f });
    for p in &mut s.clients.phases {
        p.count = p.count.map(|n| count(n, 0));
        p.rate = p.rate.map(|r| Rate { per_s: r.per_s / f });
    }
    if s.services.is_empty() || s.services.iter().any(|v| v.service_time == ServiceTime::S5) {
        s.server.min_delay = times(s.server.min_delay, f)?;
    }
    for svc in &mut s.services {
        svc.service_time = service_time(svc.service_time, f)?;
        svc.rate_limit = svc.rate_limit.map(|r| Rate { per_s: r.per_s / f });
        svc.burst = svc.burst.map(|b| count(b, 1));
    }
    // The scaled scenario passes the same checks as one read from a file.
    let text = toml::to_string(&s).map_err(|e| LiveError::Invalid {
        field: "--scale",
        value: format!("{f}: {e}"),
        expected: "a scaled scenario that can be written",
    })?;
    Scenario::from_toml(&text).map_err(|e| LiveError::Invalid {
        field: "--scale",
        value: format!("{f}: {e}"),
        expected: "a factor that keeps every scaled key in its range",
    })
}

fn times(d: Duration, f: f64) -> Result<Duration, LiveError> {
    Duration::try_from_secs_f64(d.as_secs_f64() * f).map_err(|_| LiveError::Invalid {
        field: "--scale",
        value: f.to_string(),
        expected: "a factor that keeps every service time a valid duration",
    })
}

fn service_time(t: ServiceTime, f: f64) -> Result<ServiceTime, LiveError> {
    Ok(match t {
        ServiceTime::Constant(d) => ServiceTime::Constant(times(d, f)?),
        ServiceTime::Exponential(d) => ServiceTime::Exponential(times(d, f)?),
        ServiceTime::LogNormal { p50, p99 } => {
            ServiceTime::LogNormal { p50: times(p50, f)?, p99: times(p99, f)? }
        }
        ServiceTime::Linear { base, per_in_flight } => {
            ServiceTime::Linear { base: times(base, f)?, per_in_flight: times(per_in_flight, f)? }
        }
        ServiceTime::Empirical(q) => ServiceTime::Empirical(q.try_map(|d| times(d, f))?),
        ServiceTime::S5 => ServiceTime::S5,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const STACK: &str = r#"
duration = "60s"
[clients]
count = 1000
think = "10s"
[[service]]
name = "front"
workers = 4
queue = 8
service_time = "lognormal:p50=2ms,p99=10ms"
rate_limit = "200/s"
burst = 50
[[service.call]]
to = "db"
[[service]]
name = "db"
workers = 2
queue = 4
service_time = "exponential:5ms"
"#;

    #[test]
    fn load_and_capacity_divided_alike() {
        let s = Scenario::from_toml(STACK).unwrap();
        let t = scale(&s, 10.0).unwrap();
        assert_eq!(t.clients.count, 100);
        assert_eq!(t.services[0].service_time, "lognormal:p50=20ms,p99=100ms".parse().unwrap());
        assert_eq!(t.services[1].service_time, ServiceTime::Exponential(Duration::from_millis(50)));
        assert_eq!(t.services[0].rate_limit.map(|r| r.per_s), Some(20.0));
        assert_eq!(t.services[0].burst, Some(5));
        // Utilisation of db: λ·S/c = (1000/10 s)·5 ms/2 before, (100/10 s)·50 ms/2 after.
        assert_eq!((t.services[1].workers, t.services[1].queue), (2, 4));
        // Timeouts and the outage's times stay.
        assert_eq!((t.clients.timeout, t.outage.start), (s.clients.timeout, s.outage.start));
        assert_eq!(scale(&s, 1.0).unwrap(), s);
    }

    #[test]
    fn open_loop_rate_divided() {
        let s = Scenario::from_toml(&STACK.replace("count = 1000", "rate = \"500/s\"")).unwrap();
        assert_eq!(scale(&s, 4.0).unwrap().clients.rate.map(|r| r.per_s), Some(125.0));
    }

    #[test]
    fn out_of_range_names_the_flag() {
        let s = Scenario::from_toml(STACK).unwrap();
        for f in [0.0, -1.0, f64::NAN, 1001.0] {
            assert!(scale(&s, f).unwrap_err().to_string().starts_with("--scale"), "{f}");
        }
        // A count of 1000 users at 0.01 is 100,000: fine; service times × 1000 stay valid too.
        let e = scale(&s, 1000.0);
        assert!(e.is_ok(), "{e:?}");
    }
}
