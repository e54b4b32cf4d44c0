//! S4: twenty tokio workers share one responsive backoff while writing to an endpoint limited to
//! 50 requests/s (`rebound serve --rate-limit 50/s`, started here in-process).
//!
//! ```sh
//! cargo run -p rebound-live --example responsive_workers
//! ```

use rebound_live::server::{Server, ServerConfig};
use rebound_live::workers::run_workers;
use rebound_retry::{Responsive, ResponsiveConfig};
use rebound_sim::DelayModel;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = ServerConfig {
        listen: "127.0.0.1:0".parse()?,
        allow_remote: false,
        model: DelayModel { min_delay: Duration::from_millis(5), ..DelayModel::default() },
        rate_limit: NonZeroU32::new(50),
    };
    let server = Server::bind(&config).await?;
    let url = format!("http://{}/api", server.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.run(async move {
        let _ = stopped.await;
    }));
    // S4's example configuration: 1 ms initial, x1.5 up, x0.6 down after 5 successes.
    let backoff = Arc::new(Responsive::new(
        ResponsiveConfig::builder()
            .initial(Duration::from_millis(1))
            .down(0.6)
            .randomization(0.0)
            .threshold(5)
            .build()?,
    ));
    let report = run_workers(&url, 20, 25, backoff.clone()).await;
    let m = backoff.metrics();
    println!(
        "{} jobs in {:.1} s ({:.1}/s against a limit of 50/s); {} refused; refused share by quarter {:?}",
        report.ok,
        report.elapsed.as_secs_f64(),
        report.ok as f64 / report.elapsed.as_secs_f64(),
        report.refused,
        report.refused_share_by_quarter.map(|s| (s * 100.0).round() / 100.0),
    );
    println!(
        "responsive backoff: {} outcomes, went up {}, went down {}, slept {} times for {:?}; now {:?}",
        m.invocations,
        m.went_up,
        m.went_down,
        m.slept,
        m.sleep_time,
        backoff.current()
    );
    let _ = stop.send(());
    serving.await??;
    Ok(())
}
