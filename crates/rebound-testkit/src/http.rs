//! A minimal HTTP/1.0 GET over a plain TCP stream, so the kit's own tests (and quick probes in
//! other tests) need no HTTP client.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::time::Duration;

/// The parts of an HTTP reply the tests look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpReply {
    /// The status code, e.g. 200 or 429.
    pub status: u16,
    /// The raw `Retry-After` header value, if present.
    pub retry_after: Option<String>,
    /// The body as (lossy) UTF-8.
    pub body: String,
}

/// Sends `GET path HTTP/1.0` to `127.0.0.1:port` and reads the whole reply (2 s read timeout).
///
/// # Panics
/// If the connection fails or the reply is not HTTP: this is a test helper.
pub fn http_get(port: u16, path: &str) -> HttpReply {
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port))
        .unwrap_or_else(|e| panic!("rebound-testkit: connect 127.0.0.1:{port}: {e}"));
    stream.set_read_timeout(Some(Duration::from_secs(2))).expect("set_read_timeout");
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").expect("send request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read reply");
    parse(&String::from_utf8_lossy(&raw))
}

fn parse(text: &str) -> HttpReply {
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("rebound-testkit: not an HTTP reply: {text:?}"));
    let retry_after = lines.find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("retry-after").then(|| value.trim().to_string())
    });
    HttpReply { status, retry_after, body: body.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_status_header_and_body() {
        let reply = parse("HTTP/1.1 429 Too Many Requests\r\nretry-after: 3\r\n\r\nslow down");
        assert_eq!(reply.status, 429);
        assert_eq!(reply.retry_after.as_deref(), Some("3"));
        assert_eq!(reply.body, "slow down");
    }
}
