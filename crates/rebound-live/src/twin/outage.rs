//! The scenario's `[outage]` done to real processes, at its `start` and undone at its `end`
//! (times from the start of the users' load):
//!
//! | kind | live mechanism |
//! |---|---|
//! | `pause` | `SIGSTOP`, then `SIGCONT`: the kernel still accepts connections into the listen backlog, nothing answers (S5's experiment) |
//! | `hard-down` | `POST /admin/outage {"kind":"hard-down"}`: every request answered 503 at once; `DELETE /admin/outage` |
//! | `capacity-cut` | `POST /admin/outage {"kind":"capacity-cut","slowdown":F}`: service times × F |
//! | `errors` | `POST /admin/outage {"kind":"errors","error_rate":P}` |
//! | `load-spike` | the load generator's offered load × `factor` (open-loop rate, or active closed-loop users) |
//!
//! `[outage] replica = I` hits that replica's process only; otherwise every replica's.

use super::processes::ServiceProcess;
use crate::LiveError;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use rebound_sim::{OutageKind, Scenario};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The most an admin request may take: 2 s.
pub const ADMIN_TIMEOUT: Duration = Duration::from_secs(2);

/// One process the outage hits.
#[derive(Debug, Clone)]
pub struct Target {
    /// Its index among the stack's processes.
    pub index: usize,
    /// Its process id.
    pub pid: Pid,
    /// Its base URL.
    pub url: String,
}

/// The processes `scenario`'s outage hits among `processes`.
pub fn targets(scenario: &Scenario, processes: &[ServiceProcess]) -> Vec<Target> {
    let o = &scenario.outage;
    let name = o.service.clone().unwrap_or_else(|| scenario.services[super::entry(scenario)].name.clone());
    processes
        .iter()
        .enumerate()
        .filter(|(_, p)| scenario.services[p.id.service].name == name)
        .filter(|(_, p)| o.replica.is_none_or(|r| r == p.id.replica))
        .map(|(index, p)| Target { index, pid: p.pid, url: p.url.clone() })
        .collect()
}

/// What the live run does for `scenario`'s outage, in one line for the report.
///
/// # Errors
/// None today (every kind runs live); kept fallible for kinds that may not.
pub fn mechanism(scenario: &Scenario) -> Result<String, LiveError> {
    let o = &scenario.outage;
    let h = |d: Duration| humantime::format_duration(d).to_string();
    let when = format!("at {} and undone at {} of the load", h(o.start), h(o.end));
    Ok(match o.kind {
        OutageKind::None => "no outage".into(),
        OutageKind::Pause => format!("pause: SIGSTOP {when} (SIGCONT)"),
        OutageKind::HardDown | OutageKind::CapacityCut | OutageKind::Errors => {
            format!("{}: POST /admin/outage {} {when} (DELETE /admin/outage)", kind(o.kind), body(scenario))
        }
        OutageKind::LoadSpike => {
            format!("load-spike: the load generator's offered load x {} {when}", o.factor)
        }
    })
}

/// What runs for the calls' network model, if any call has one: `latency` and `loss` are
/// applied in-process by the calling service (a sleep and a dropped attempt), not by
/// `tc netem` in network namespaces.
pub fn network(scenario: &Scenario) -> Option<String> {
    let links: Vec<String> = scenario
        .services
        .iter()
        .flat_map(|s| s.calls.iter().map(move |c| (s, c)))
        .filter(|(_, c)| c.latency.is_some() || c.loss > 0.0)
        .map(|(s, c)| format!("{} -> {}", s.name, c.to))
        .collect();
    (!links.is_empty())
        .then(|| format!("network delay and loss in-process, in the caller ({})", links.join(", ")))
}

fn kind(k: OutageKind) -> &'static str {
    match k {
        OutageKind::None => "none",
        OutageKind::Pause => "pause",
        OutageKind::HardDown => "hard-down",
        OutageKind::CapacityCut => "capacity-cut",
        OutageKind::LoadSpike => "load-spike",
        OutageKind::Errors => "errors",
    }
}

/// The admin request's JSON body (the contract's).
pub fn body(scenario: &Scenario) -> String {
    let o = &scenario.outage;
    match o.kind {
        OutageKind::CapacityCut => format!(r#"{{"kind":"capacity-cut","slowdown":{}}}"#, o.slowdown),
        OutageKind::Errors => format!(r#"{{"kind":"errors","error_rate":{}}}"#, o.error_rate),
        k => format!(r#"{{"kind":"{}"}}"#, kind(k)),
    }
}

/// Applies the outage at `start + outage.start` and lifts it at `start + outage.end`;
/// `stopped[i]` is set while process `i` is stopped (not to be scraped). Returns when lifted.
///
/// # Errors
/// [`LiveError::Io`] if a signal cannot be sent, [`LiveError::Unreachable`] if an admin request
/// fails or is not answered 2xx within [`ADMIN_TIMEOUT`].
pub async fn run(
    scenario: &Scenario,
    targets: &[Target],
    stopped: Arc<Vec<AtomicBool>>,
    start: Instant,
) -> Result<(), LiveError> {
    let o = &scenario.outage;
    // A load spike is the load generator's ([`crate::load::Spike`]).
    if matches!(o.kind, OutageKind::None | OutageKind::LoadSpike) {
        return Ok(());
    }
    let client = reqwest::Client::builder()
        .timeout(ADMIN_TIMEOUT)
        .build()
        .map_err(|e| LiveError::Unreachable { url: "admin".into(), reason: crate::error::chain(&e) })?;
    tokio::time::sleep_until(start + o.start).await;
    for t in targets {
        if o.kind == OutageKind::Pause {
            stopped[t.index].store(true, Relaxed);
            signal(t.pid, Signal::SIGSTOP)?;
        } else {
            let post = client.post(format!("{}/admin/outage", t.url));
            admin(post.header("content-type", "application/json").body(body(scenario))).await?;
        }
    }
    tokio::time::sleep_until(start + o.end).await;
    for t in targets {
        if o.kind == OutageKind::Pause {
            signal(t.pid, Signal::SIGCONT)?;
            stopped[t.index].store(false, Relaxed);
        } else {
            admin(client.delete(format!("{}/admin/outage", t.url))).await?;
        }
    }
    Ok(())
}

fn signal(pid: Pid, sig: Signal) -> Result<(), LiveError> {
    kill(pid, sig).map_err(|e| LiveError::Io { what: format!("kill -{sig} {pid}"), cause: e.into() })
}

async fn admin(req: reqwest::RequestBuilder) -> Result<(), LiveError> {
    let req = req.header(reqwest::header::CONTENT_TYPE, "application/json");
    let url =
        req.try_clone().and_then(|r| r.build().ok()).map_or_else(|| "admin".into(), |r| r.url().to_string());
    match req.send().await {
        Ok(r) if r.status().is_success() => Ok(()),
        Ok(r) => Err(LiveError::Unreachable { url, reason: format!("answered {}", r.status()) }),
        Err(e) => Err(LiveError::Unreachable { url, reason: crate::error::chain(&e) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(outage: &str) -> Scenario {
        Scenario::from_toml(&format!(
            "[[service]]\nname = \"a\"\nservice_time = \"constant:1ms\"\n[outage]\nstart = \"5s\"\nend = \"9s\"\n{outage}"
        ))
        .unwrap()
    }

    #[test]
    fn bodies_and_mechanisms_follow_the_contract() {
        assert_eq!(body(&with("kind = \"hard-down\"")), r#"{"kind":"hard-down"}"#);
        assert_eq!(network(&with("kind = \"pause\"")), None);
        let linked = Scenario::from_toml(
            "[[service]]\nname = \"a\"\nservice_time = \"constant:1ms\"\n[[service.call]]\nto = \"b\"\nloss = 0.1\n\
             [[service]]\nname = \"b\"\nservice_time = \"constant:1ms\"\n",
        )
        .unwrap();
        assert_eq!(network(&linked).unwrap(), "network delay and loss in-process, in the caller (a -> b)");
        assert_eq!(
            body(&with("kind = \"capacity-cut\"\nslowdown = 4")),
            r#"{"kind":"capacity-cut","slowdown":4}"#
        );
        assert_eq!(
            body(&with("kind = \"errors\"\nerror_rate = 0.5")),
            r#"{"kind":"errors","error_rate":0.5}"#
        );
        assert!(mechanism(&with("kind = \"pause\"")).unwrap().starts_with("pause: SIGSTOP at 5s"));
        let spike = mechanism(&with("kind = \"load-spike\"\nfactor = 3")).unwrap();
        assert!(spike.starts_with("load-spike: the load generator's offered load x 3 at 5s"), "{spike}");
    }
}
