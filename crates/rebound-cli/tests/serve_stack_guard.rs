//! Issue 34 §14 for `rebound serve --scenario FILE --service NAME`: its admin endpoints
//! answered 204 to a foreign `Host` and `Origin` with `text/plain`, so any web page could take a
//! local service down. They take the lab's guard: the service's own `Host`, no foreign
//! `Origin`, `Content-Type: application/json` on a `POST`. (S5's `/admin/pause` is checked in
//! rebound-live's tests/server.rs.)

mod stack_process;

use rebound_testkit::TempDir;
use stack_process::{http, serve, write};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

const T: Duration = Duration::from_secs(10);

/// One request written as given (`{addr}` replaced by the service's address): (status, body).
fn raw(url: &str, request: &str) -> (u16, String) {
    let addr = url.strip_prefix("http://").unwrap();
    let mut s = TcpStream::connect(addr).expect("connecting");
    s.set_read_timeout(Some(T)).unwrap();
    s.write_all(request.replace("{addr}", addr).as_bytes()).unwrap();
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0), body.to_string())
}

fn post(headers: &str) -> String {
    let body = r#"{"kind":"hard-down"}"#;
    format!(
        "POST /admin/outage HTTP/1.1\r\n{headers}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn admin_outage_refuses_foreign_hosts_origins_and_content_types() {
    let dir = TempDir::new("serve-stack-guard");
    let text = "duration = \"60s\"\n[clients]\ncount = 1\n[[service]]\nname = \"db\"\nservice_time = \"constant:1ms\"\n[outage]\nkind = \"none\"\n";
    let db = serve(&write(&dir, text), "db", &[]);
    let json = "Content-Type: application/json\r\n";
    let refused = [
        (post(&format!("Host: rebind.example\r\n{json}")), 403, "Host rebind.example"),
        (post(&format!("Host: {{addr}}\r\nOrigin: https://evil.example\r\n{json}")), 403, "Origin"),
        (post("Host: {addr}\r\nContent-Type: text/plain\r\n"), 415, "application/json"),
        (post("Host: {addr}\r\n"), 415, "application/json"),
        (
            "DELETE /admin/outage HTTP/1.1\r\nHost: rebind.example\r\nConnection: close\r\n\r\n".into(),
            403,
            "Host rebind.example",
        ),
    ];
    for (request, status, named) in &refused {
        let (got, body) = raw(&db.url, request);
        assert_eq!(got, *status, "{request}\n{body}");
        assert!(body.contains(named), "{request}\n{body}");
        assert_eq!(http("GET", &db.url, "/", "", T).0, 200, "db is still up after:\n{request}");
    }
    // Its own page's request takes db down.
    let own = post(&format!("Host: {{addr}}\r\nOrigin: {}\r\n{json}", db.url));
    assert_eq!(raw(&db.url, &own).0, 204);
    assert_eq!(http("GET", &db.url, "/", "", T).0, 503, "db is hard-down");
}
