//! The kit's own tests: the servers really start, really limit, really die.

use rebound_testkit::{http_get, Nginx, NginxConfig, RedisServer};

#[test]
fn nginx_serves_then_answers_429_with_retry_after() {
    let nginx = Nginx::start(NginxConfig { rate_per_sec: 5, burst: 2, retry_after_secs: 3 });
    assert!(nginx.url().ends_with(&format!(":{}/", nginx.port())));
    let replies: Vec<_> = (0..8).map(|_| http_get(nginx.port(), "/")).collect();
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(statuses[0], 200, "{statuses:?}");
    assert_eq!(replies[0].body, "rebound ok\n");
    assert_eq!(replies[0].retry_after, None);
    let refused: Vec<_> = replies.iter().filter(|r| r.status == 429).collect();
    assert!(refused.len() >= 4, "expected >= 4 refusals, got {statuses:?}");
    for reply in refused {
        assert_eq!(reply.retry_after.as_deref(), Some("3"));
        assert_eq!(reply.body, "Too many requests\n");
    }
}

#[test]
fn nginx_stops_on_drop() {
    let nginx = Nginx::start(NginxConfig::default());
    let (port, prefix) = (nginx.port(), nginx.prefix().to_path_buf());
    drop(nginx);
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
    assert!(!prefix.exists());
}

#[test]
fn redis_answers_ping_until_killed() {
    let mut redis = RedisServer::start();
    assert!(redis.is_alive());
    assert_eq!(redis.url(), format!("redis://127.0.0.1:{}/", redis.port()));
    redis.kill();
    assert!(!redis.is_alive());
    redis.kill();
}

#[test]
#[should_panic(expected = "not found in PATH")]
fn missing_binary_panics_clearly() {
    rebound_testkit::find_binary("rebound-no-such-server", "no-such-package");
}

#[test]
fn nginx_without_burst_refuses_the_second_quick_request() {
    let nginx = Nginx::start(NginxConfig { rate_per_sec: 1, burst: 0, retry_after_secs: 2 });
    assert_eq!(http_get(nginx.port(), "/").status, 200);
    let refused = http_get(nginx.port(), "/");
    assert_eq!((refused.status, refused.retry_after.as_deref()), (429, Some("2")));
}
