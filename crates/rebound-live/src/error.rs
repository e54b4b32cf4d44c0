//! The lab's errors.

use std::net::SocketAddr;

/// Why a server, load run or experiment could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LiveError {
    /// A non-loopback listen address without `allow_remote`.
    #[error(
        "--listen {0}: not a loopback address (127.0.0.0/8 or ::1); pass --allow-remote to serve other hosts"
    )]
    RemoteListen(SocketAddr),
    /// A field out of its valid range.
    #[error("{field} = {value}: expected {expected}")]
    Invalid {
        /// The flag or field.
        field: &'static str,
        /// The value given.
        value: String,
        /// The valid range.
        expected: &'static str,
    },
    /// The target could not be reached before the run.
    #[error("cannot reach {url}: {reason}")]
    Unreachable {
        /// The URL tried.
        url: String,
        /// The transport error, with its causes.
        reason: String,
    },
    /// Stopped (Ctrl-C, SIGTERM) before the run began.
    #[error("interrupted")]
    Interrupted,
    /// A process of the live twin's stack exited while it should have been serving.
    #[error("service process {process} exited ({status}){}", if stderr.is_empty() { String::new() } else { format!("; its stderr: {stderr}") })]
    ChildDied {
        /// The service (`NAME`, or `NAME[I]` for replica `I`).
        process: String,
        /// Its exit status (`exit status: 2`, `signal: 9 (SIGKILL)`).
        status: String,
        /// The last lines it wrote to stderr.
        stderr: String,
    },
    /// A process of the live twin's stack stopped answering its `/metrics` (stopped by a
    /// signal from outside, hung or starved): its figures would be its last scrape's.
    #[error("service process {process} (pid {pid}) answered none of {missed} scrapes of its /metrics in a row: {state}")]
    Unresponsive {
        /// The service (`NAME`, or `NAME[I]` for replica `I`).
        process: String,
        /// Its process id.
        pid: i32,
        /// Scrapes in a row unanswered.
        missed: u32,
        /// What /proc says of it.
        state: String,
    },
    /// A scenario key the live twin cannot run (a usage error: exit 2).
    #[error("{field}: {reason}")]
    NotLive {
        /// The key, as in the scenario file.
        field: String,
        /// Why, and what to do instead.
        reason: String,
    },
    /// A socket or process operation failed.
    #[error("{what}: {cause}")]
    Io {
        /// What was being done.
        what: String,
        /// The OS error (in the message, not a `source()`: a chain would print it twice).
        cause: std::io::Error,
    },
}

impl LiveError {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> LiveError {
        let what = what.into();
        move |cause| LiveError::Io { what, cause }
    }
}

/// An error and its causes on one line (`a: b: c`).
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}
