//! Usage errors and bounded flag values.
//!
//! Every bad input is a *usage error* and exits with status 2, as clap does for the flags it
//! rejects itself; failures at run time exit with 1. Two ways lead to status 2: a flag's value
//! is refused by one of the bounded parsers here (clap then names the flag and prints the
//! range), or a check after parsing — a scenario file, a combination of flags, a spec key a
//! command cannot honour — returns an error that [`is_usage`] recognises: a [`Usage`], or one
//! of the libraries' input errors (a bad spec, scenario, advise input or lab setting).
//!
//! Bounds are stated once, here, and quoted by `--help` (see each flag's doc comment).

mod spec;

pub use spec::{honoured_by, spec_for, Runs};

use rebound_sim::range::Counts;
use std::time::Duration;

/// An input the command refuses: the message names the flag, key or file and the valid range.
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// A usage error with this message.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    Usage(message.into()).into()
}

/// Turns any error into a usage error, keeping its message (and the context given).
pub trait UsageExt<T> {
    /// A usage error with `context: error`.
    fn usage(self, context: impl std::fmt::Display) -> anyhow::Result<T>;
}

impl<T, E: std::fmt::Display> UsageExt<T> for Result<T, E> {
    fn usage(self, context: impl std::fmt::Display) -> anyhow::Result<T> {
        self.map_err(|e| usage(format!("{context}: {e}")))
    }
}

/// Whether `e` is a usage error (exit status 2): a [`Usage`], or an input error of the
/// libraries anywhere in its chain.
pub fn is_usage(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.is::<Usage>()
            || c.is::<rebound_retry::ConfigError>()
            || c.is::<rebound_sim::ScenarioError>()
            || c.is::<rebound_sim::advise::InputError>()
            || c.is::<rebound_sim::contend::ContendError>()
            || c.is::<rebound_sim::range::RangeError>()
            || matches!(
                c.downcast_ref::<rebound_live::LiveError>(),
                Some(
                    rebound_live::LiveError::Invalid { .. }
                        | rebound_live::LiveError::RemoteListen(_)
                        | rebound_live::LiveError::NotLive { .. }
                )
            )
    })
}

/// One day: the longest simulated run, and the bound of the lab's other durations.
pub const DAY: Duration = Duration::from_secs(86_400);

/// The shortest live run or per-attempt timeout (`load`, `experiment live`).
pub const LIVE_MIN: Duration = Duration::from_millis(1);

/// A parser of durations in `[min, max]` (`0` means zero), for clap's `value_parser`.
///
/// The message names the range, e.g. "must be a duration in [1ns, 1day]".
pub fn duration_in(
    min: Duration,
    max: Duration,
) -> impl Fn(&str) -> Result<Duration, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let range = format!("[{}, {}]", fmt(min), fmt(max));
        let d = if s.trim() == "0" {
            Duration::ZERO
        } else {
            humantime::parse_duration(s.trim())
                .map_err(|_| format!("`{s}` is not a duration such as 100ms, 2s or 15m (range {range})"))?
        };
        if d < min || d > max {
            return Err(format!("{} is out of range: must be a duration in {range}", fmt(d)));
        }
        Ok(d)
    }
}

/// Parses `--runs`: an integer in [1, [`rebound_sim::replicate::MAX_RUNS`]].
///
/// # Errors
/// A message naming the valid range.
pub fn runs_in(s: &str) -> Result<u32, String> {
    let max = rebound_sim::replicate::MAX_RUNS;
    s.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("`{s}` is out of range: runs must be an integer in [1, {max}]"))
}

/// A parser of finite numbers in `[min, max]`, for clap's `value_parser`.
pub fn number_in(min: f64, max: f64) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= min && *x <= max)
            .ok_or_else(|| format!("`{s}` is out of range: must be a number in [{min}, {max}]"))
    }
}

/// A parser of numbers in `(0, max]` (zero excluded) for clap's `value_parser`: the error
/// states the same half-open range as the scenario key it sets.
pub fn positive_up_to(max: f64) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x > 0.0 && *x <= max)
            .ok_or_else(|| format!("`{s}` is out of range: must be a number in (0, {max}]"))
    }
}

/// A parser of count ranges (`N`, `A..B`, `A..B:STEP`, see [`Counts`]) whose counts are at
/// most `max_end` and that hold at most `max_count` counts, for clap's `value_parser`. Checked
/// before any count is listed: `1..4294967295:1` is refused, not allocated.
pub fn counts_in(
    max_end: u32,
    max_count: u64,
) -> impl Fn(&str) -> Result<Counts, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let c: Counts = s.parse().map_err(|e: rebound_sim::range::RangeError| e.to_string())?;
        if c.end() > max_end {
            return Err(format!("invalid range `{s}`: counts must be in [1, {max_end}]"));
        }
        if c.count() > max_count {
            return Err(format!(
                "invalid range `{s}`: {} counts, at most {max_count} allowed (use a larger STEP)",
                c.count()
            ));
        }
        Ok(c)
    }
}

/// Parses a live run's `--rate`, `R/s` with R in [0.001, 1000000]: with at most 100000
/// clients each client's mean think time (`clients / rate`) stays far inside a `Duration`.
pub fn live_rate(s: &str) -> Result<f64, String> {
    let r = crate::advise::parse_rate(s)?;
    if (0.001..=1e6).contains(&r) {
        Ok(r)
    } else {
        Err(format!("`{s}` is out of range: must be R/s with R in [0.001, 1000000]"))
    }
}

/// Parses a `--url`: `http://HOST[:PORT]/...` or `https://...` (the full check is the HTTP
/// client's; this one turns a typo into a usage error instead of a failed run).
pub fn http_url(s: &str) -> Result<String, String> {
    let rest = s.strip_prefix("http://").or_else(|| s.strip_prefix("https://"));
    match rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or("")) {
        Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) => Ok(s.to_string()),
        _ => Err(format!(
            "`{s}` is not an http:// or https:// URL with a host, e.g. http://127.0.0.1:8070/api"
        )),
    }
}

/// A duration as specs and messages write it (`100ms`, `1day`).
pub fn fmt(d: Duration) -> String {
    humantime::format_duration(d).to_string().replace(' ', "")
}

/// A listen address: `IP:PORT`, or `localhost:PORT`, taken as `127.0.0.1:PORT` (loopback
/// whatever the resolver says, so `localhost` never binds beyond it).
///
/// # Errors
/// Neither form, naming both.
pub fn listen_addr(s: &str) -> Result<std::net::SocketAddr, String> {
    let local = s.strip_prefix("localhost:").and_then(|port| port.parse::<u16>().ok());
    match local {
        Some(port) => Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port))),
        None => s.parse().map_err(|_| {
            format!("invalid address `{s}`: must be IP:PORT (127.0.0.1:8090, [::1]:8090) or localhost:PORT")
        }),
    }
}

/// A parser of plot paths: the file must end in `.svg` or `.png` and its directory must exist
/// (checked before any work, not after a long run).
pub fn plot_path(s: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(s);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if ext != "svg" && ext != "png" {
        return Err(format!("`{s}`: the file name must end in .svg or .png"));
    }
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => Err(format!("`{s}`: the directory {} does not exist", dir.display())),
        _ => Ok(path),
    }
}

#[cfg(test)]
mod tests;
