//! S4 against a real rate-limited server: workers sharing one responsive backoff learn the
//! endpoint's rate — the shared delay keeps refusals a small share of attempts — and all jobs
//! complete.

use rebound_live::server::{Server, ServerConfig};
use rebound_live::workers::run_workers;
use rebound_retry::{Responsive, ResponsiveConfig};
use rebound_sim::DelayModel;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_responsive_backoff_finds_the_rate_limit() {
    let config = ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        allow_remote: false,
        model: DelayModel { min_delay: Duration::from_millis(2), ..DelayModel::default() },
        rate_limit: NonZeroU32::new(40),
    };
    let server = Server::bind(&config).await.unwrap();
    let url = format!("http://{}/api", server.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.run(async move {
        let _ = stopped.await;
    }));
    let backoff = Arc::new(Responsive::new_seeded(
        ResponsiveConfig::builder()
            .initial(Duration::from_millis(1))
            .down(0.6)
            .randomization(0.0)
            .threshold(5)
            .build()
            .unwrap(),
        1,
    ));
    let report = tokio::time::timeout(Duration::from_secs(30), run_workers(&url, 10, 12, backoff.clone()))
        .await
        .unwrap();
    assert_eq!(report.ok, 120, "every job completes");
    let m = backoff.metrics();
    assert!(m.went_up > 0 && m.went_down > 0, "{m:?}");
    assert!(report.refused > 0, "10 workers at full speed exceed 40/s");
    // Workers at full speed without a shared delay would be refused > 90 % of the time (each
    // can send hundreds a second; the server admits 40). The shared delay keeps the refused
    // share of all attempts low. (Comparing quarters of the run was noise-prone: the last
    // quarter holds few attempts, and under load one refusal more swings it.)
    let share = report.refused as f64 / (report.ok + report.refused) as f64;
    let q = report.refused_share_by_quarter;
    assert!(share < 0.5, "refused share {share:.2}, by quarter {q:?}");
    let _ = stop.send(());
    serving.await.unwrap().unwrap();
}
