//! `rebound serve --rate-limit N/s` on the wire: `RateLimit` and `RateLimit-Policy` on every
//! answer from the token bucket's state, and still `Retry-After` on 429.

use rebound_live::server::{Server, ServerConfig};
use rebound_retry::http::{parse_ratelimit, parse_ratelimit_policy};
use rebound_sim::DelayModel;
use std::num::NonZeroU32;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_carry_the_bucket_state() {
    let config = ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        allow_remote: false,
        model: DelayModel::default(),
        rate_limit: NonZeroU32::new(3),
    };
    let server = Server::bind(&config).await.unwrap();
    let url = format!("http://{}/api", server.local_addr());
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.run(async move {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::new();
    let first = fields(client.get(&url).send().await.unwrap());
    assert_eq!(first, (200, 2, 1, None));
    // Six at once against the two tokens left (one refilled every 333 ms): some get 429.
    let burst: Vec<_> = (0..6).map(|_| tokio::spawn(client.get(&url).send())).collect();
    let mut seen = Vec::new();
    for t in burst {
        seen.push(fields(t.await.unwrap().unwrap()));
    }
    let refused = seen.iter().find(|s| s.0 == 429).expect("a 429 among six requests at once");
    assert_eq!((refused.1, refused.2, refused.3.as_deref()), (0, 1, Some("1")));
}

/// Status, `r`, `t` and `Retry-After` of an answer, after checking its `RateLimit-Policy`.
fn fields(r: reqwest::Response) -> (u16, u64, u64, Option<String>) {
    let h = |n: &str| r.headers().get(n).map(|v| v.to_str().unwrap().to_string());
    let policy = parse_ratelimit_policy(&h("ratelimit-policy").unwrap());
    assert_eq!((policy[0].quota, policy[0].window), (3, Some(Duration::from_secs(1))));
    let limit = parse_ratelimit(&h("ratelimit").unwrap());
    (r.status().as_u16(), limit[0].remaining, limit[0].reset.unwrap().as_secs(), h("retry-after"))
}
