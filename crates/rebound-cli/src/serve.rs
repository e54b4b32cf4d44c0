//! `rebound serve`: S5's server (see `rebound_live::server`), or with `--scenario` one service
//! of a scenario's graph (`serve_stack.rs`, see `rebound_live::stack`).

use crate::output;
use crate::usage::{duration_in, number_in, DAY};
use anyhow::{Context, Result};
use rebound_live::server::{Server, ServerConfig};
use rebound_sim::DelayModel;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::process::ExitCode;
use std::time::Duration;

/// S5's HTTP server: each request takes MIN_DELAY * FACTOR^((C - LIMIT) / K) once the C requests
/// in flight exceed LIMIT, re-checked every 50 ms; abandoned requests keep counting. Prints
/// `concurrency: C, last delay: D` once a second; `GET /metrics` (Prometheus),
/// `POST /admin/pause`, `POST /admin/resume`. Ctrl-C or SIGTERM stop it.
///
/// With --scenario FILE --service NAME: one `[[service]]` of the scenario as a real process
/// (workers, bounded queue, its defenses, its calls through the library's retry with each
/// call's policy to the --peer URLs); `GET /metrics`, `POST`/`DELETE /admin/outage`. Prints
/// `listening on http://ADDR` and nothing else (with --traces FILE, every request recorded as
/// OpenTelemetry spans in FILE, and `traces: N written, M dropped` when it stops).
///
/// Also: rebound serve --listen 127.0.0.1:8070 --concurrency-limit 30 --factor 1.05
///
/// Also: rebound serve --scenario stack.toml --service front --listen 127.0.0.1:0 --peer db=http://127.0.0.1:8071
#[derive(Debug, clap::Args)]
#[command(after_help = "Example (serves until Ctrl-C):\n  $ rebound serve --rate-limit 50/s")]
pub struct Args {
    /// The listen address (loopback unless --allow-remote).
    #[arg(long, default_value = "127.0.0.1:8070", value_parser = crate::usage::listen_addr)]
    listen: SocketAddr,
    /// Accept a non-loopback --listen address.
    #[arg(long)]
    allow_remote: bool,
    /// The delay at or below the concurrency limit, 0 to 1day.
    #[arg(long, default_value = "100ms", value_parser = duration_in(Duration::ZERO, DAY), conflicts_with = "scenario")]
    min_delay: Duration,
    /// Requests in flight served at --min-delay.
    #[arg(long, default_value_t = 30, conflicts_with = "scenario")]
    concurrency_limit: u64,
    /// Delay growth per K requests above the limit, a number in [1, 1000000].
    #[arg(long, default_value_t = 1.05, value_parser = number_in(1.0, 1e6), conflicts_with = "scenario")]
    factor: f64,
    /// Requests above the limit per step of --factor, a number in [0.000001, 1000000000].
    #[arg(long, default_value_t = 15.0, value_parser = number_in(1e-6, 1e9), conflicts_with = "scenario")]
    k: f64,
    /// Admit at most N requests per second (token bucket of N); others get 429 + Retry-After. Every
    /// answer carries RateLimit and RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers).
    #[arg(long, value_name = "N/s", value_parser = parse_limit, conflicts_with = "scenario")]
    rate_limit: Option<NonZeroU32>,
    #[command(flatten)]
    stack: crate::serve_stack::StackArgs,
    /// Stop when standard input reaches end of file: a parent that starts the server with a pipe
    /// as its stdin (`rebound experiment live` does) takes it down with itself, however it ends.
    #[arg(long)]
    stop_on_stdin_eof: bool,
}

/// Completes when stdin reaches end of file (or fails), if `on`; never otherwise. Read on a
/// thread of its own, which the process's exit ends.
pub(crate) async fn stdin_eof(on: bool) {
    if !on {
        return std::future::pending().await;
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        let _ = tx.send(());
    });
    let _ = rx.await;
}

fn parse_limit(s: &str) -> Result<NonZeroU32, String> {
    let n = s.trim().strip_suffix("/s").unwrap_or(s.trim());
    n.parse::<NonZeroU32>().map_err(|_| {
        format!("invalid rate limit `{s}`: must be N/s with N an integer in 1..=4294967295, e.g. 50/s")
    })
}

/// Runs the command.
pub fn run(args: Args) -> Result<ExitCode> {
    if args.stack.scenario.is_some() {
        return crate::serve_stack::run(&args.stack, args.listen, args.allow_remote, args.stop_on_stdin_eof);
    }
    let model = DelayModel::new(args.min_delay, args.concurrency_limit, args.factor, args.k)
        .context("invalid --factor or --k")?;
    let config = ServerConfig {
        listen: args.listen,
        allow_remote: args.allow_remote,
        model,
        rate_limit: args.rate_limit,
    };
    let rt = crate::runtime()?;
    rt.block_on(async {
        let server = Server::bind(&config).await?;
        let handle = server.handle();
        output::line(&format!("listening on http://{}/api", server.local_addr()))?;
        let status = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.tick().await;
            loop {
                tick.tick().await;
                output::status_line(&handle.status_line());
            }
        });
        let stop = async move {
            tokio::select! {
                () = crate::shutdown_signal() => {}
                () = stdin_eof(args.stop_on_stdin_eof) => {}
            }
        };
        server.run(stop).await.context("rebound serve")?;
        status.abort();
        Ok(ExitCode::SUCCESS)
    })
}
