//! The kit's servers start, behave as configured, and stop.

use rebound_testkit::{Nginx, RateLimit, RedisServer};
use std::io::{Read, Write};
use std::net::TcpStream;

fn get_status(port: u16) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    (text[9..12].parse().unwrap(), text)
}

#[test]
fn nginx_limits_with_429_and_retry_after() {
    // real-servers.md: rate 5r/s, burst=2 nodelay, 8 quick requests -> 3 x 200, then 429s.
    // At 1r/s the same holds, and "quick" means within a second rather than 200 ms: the margin
    // a loaded machine needs.
    let nginx = Nginx::start(RateLimit { per_second: 1, burst: 2, retry_after_s: 1 });
    let got: Vec<(u16, String)> = (0..8).map(|_| get_status(nginx.port())).collect();
    let statuses: Vec<u16> = got.iter().map(|g| g.0).collect();
    assert_eq!(statuses.iter().filter(|&&s| s == 200).count(), 3, "{statuses:?}");
    assert_eq!(statuses.last(), Some(&429));
    let throttled = &got.iter().find(|g| g.0 == 429).unwrap().1;
    assert!(throttled.contains("Retry-After: 1"), "{throttled}");
    // nginx logs after answering: wait (bounded) for the eight lines.
    assert!(nginx.statuses_at_least(8).len() >= 8, "{:?}", nginx.access_log());
}

#[test]
fn redis_answers_and_dies_on_kill() {
    let mut redis = RedisServer::start();
    let mut s = TcpStream::connect(("127.0.0.1", redis.port())).unwrap();
    s.write_all(b"SET k 1\r\nINCR k\r\n").unwrap();
    let mut buf = [0u8; 9];
    s.read_exact(&mut buf).unwrap();
    assert_eq!(&buf, b"+OK\r\n:2\r\n");
    redis.kill();
    assert!(TcpStream::connect(("127.0.0.1", redis.port())).is_err());
}
