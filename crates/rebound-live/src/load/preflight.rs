//! The check before a load run: can the target be connected to at all?
//!
//! It opens one TCP connection, within the per-attempt timeout *and* the run's duration, so
//! that a run against a dead address fails at once with the cause, and a run never lasts
//! longer than `--duration` because of it. It sends no request: a server that accepts and then
//! never answers (a stopped process, whose kernel still queues connections) is S5's outage,
//! which the run itself measures as timeouts.

use crate::error::LiveError;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpStream;

/// Connects once to `url`'s host and port within `limit`.
///
/// # Errors
/// [`LiveError::Invalid`] for a URL that is not `http://HOST[:PORT]/...`;
/// [`LiveError::Unreachable`] when the name does not resolve, the connection is refused or
/// fails, or no connection is made within `limit`.
pub(super) async fn connect(url: &str, limit: Duration) -> Result<(), LiveError> {
    let invalid = || LiveError::Invalid {
        field: "--url",
        value: url.into(),
        expected: "an http://HOST[:PORT]/PATH URL",
    };
    let parsed = reqwest::Url::parse(url).map_err(|_| invalid())?;
    if parsed.scheme() != "http" {
        return Err(invalid());
    }
    let port = parsed.port_or_known_default().ok_or_else(invalid)?;
    let unreachable = |reason: String| LiveError::Unreachable { url: url.into(), reason };
    let attempt = async {
        let host = parsed.host_str().ok_or_else(invalid)?;
        // An IPv6 literal comes bracketed; `lookup_host` parses IP literals without a lookup.
        let name = host.trim_start_matches('[').trim_end_matches(']');
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((name, port))
            .await
            .map_err(|e| unreachable(format!("cannot resolve {name}: {e}")))?
            .collect();
        let mut last = format!("{name} resolves to no address");
        for addr in addrs {
            match TcpStream::connect(addr).await {
                Ok(_) => return Ok(()),
                Err(e) => last = e.to_string(),
            }
        }
        Err(unreachable(last))
    };
    tokio::time::timeout(limit, attempt)
        .await
        .unwrap_or_else(|_| Err(unreachable(format!("no connection within {limit:?}"))))
}
