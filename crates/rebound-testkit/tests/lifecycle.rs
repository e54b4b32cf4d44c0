//! The kit's servers leave nothing behind.

use rebound_testkit::{Nginx, RateLimit};
use std::net::TcpStream;

#[test]
fn nginx_is_gone_once_dropped() {
    let nginx = Nginx::start(RateLimit { per_second: 1, burst: 0, retry_after_s: 1 });
    let port = nginx.port();
    assert!(TcpStream::connect(("127.0.0.1", port)).is_ok());
    drop(nginx);
    // With a master process, killing the master would orphan a worker still holding the port.
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err(), "port {port} still answers");
}
