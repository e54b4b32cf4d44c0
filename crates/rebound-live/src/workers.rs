//! S4's use of a responsive backoff: many workers writing to one throttled endpoint share one
//! [`Responsive`]. Each 429 (or 503, or transport error) raises the shared delay, and every
//! worker sleeps it; each run of successes lowers it, until it switches off. The workers find
//! the endpoint's rate together instead of each rediscovering it.

use rebound_retry::Responsive;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the workers saw.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkersReport {
    /// Requests that succeeded (one per job).
    pub ok: u64,
    /// Attempts refused (429 or 503) or failed in transport.
    pub refused: u64,
    /// Refused attempts as a share of all attempts, in each quarter of the run (by start time).
    pub refused_share_by_quarter: [f64; 4],
    /// Wall time of the run.
    pub elapsed: Duration,
}

/// Runs `workers` tokio tasks, each doing `jobs` successful GETs of `url`, sharing `backoff`.
///
/// # Panics
/// If a worker task panics (it does not: errors are counted).
pub async fn run_workers(url: &str, workers: usize, jobs: usize, backoff: Arc<Responsive>) -> WorkersReport {
    let client = reqwest::Client::new();
    let started = Instant::now();
    // (start of the attempt, refused?) for every attempt.
    let log: Arc<Mutex<Vec<(Duration, bool)>>> = Arc::default();
    let tasks: Vec<_> = (0..workers)
        .map(|_| {
            let (client, url, backoff, log) = (client.clone(), url.to_string(), backoff.clone(), log.clone());
            tokio::spawn(async move {
                for _ in 0..jobs {
                    loop {
                        let at = started.elapsed();
                        let status = client.get(&url).send().await.map(|r| r.status().as_u16());
                        let refused = !matches!(status, Ok(s) if s < 400);
                        log.lock().unwrap_or_else(|e| e.into_inner()).push((at, refused));
                        if refused {
                            tokio::time::sleep(backoff.on_failure()).await;
                            continue;
                        }
                        if let Some(d) = backoff.on_success() {
                            tokio::time::sleep(d).await;
                        }
                        break;
                    }
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("a worker does not panic");
    }
    let elapsed = started.elapsed();
    let log = log.lock().unwrap_or_else(|e| e.into_inner());
    let mut quarters = [(0u64, 0u64); 4];
    for &(at, refused) in log.iter() {
        let q = ((at.as_secs_f64() / elapsed.as_secs_f64() * 4.0) as usize).min(3);
        quarters[q].0 += 1;
        quarters[q].1 += u64::from(refused);
    }
    let refused = log.iter().filter(|e| e.1).count() as u64;
    WorkersReport {
        ok: log.len() as u64 - refused,
        refused,
        refused_share_by_quarter: quarters.map(|(n, r)| if n == 0 { 0.0 } else { r as f64 / n as f64 }),
        elapsed,
    }
}
