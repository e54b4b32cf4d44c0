//! `rebound lab`: the storm lab in a browser. An axum server on loopback serves one page (its
//! HTML, CSS and JavaScript are compiled into the binary: no CDN, works offline) and a small
//! JSON API over the simulator:
//!
//! | method and path | what it does |
//! |---|---|
//! | `GET /api/defaults` | built-in scenarios (TOML), the default policies, the lab's bounds |
//! | `POST /api/specs/check` | `{"spec": "..."}` → 200 `{"spec": canonical}` or 400 `{"error"}` |
//! | `POST /api/check` | a run request (below) → 200 `{"ok", "errors": [{"path", "message"}], "cost"}`: the errors `POST /api/runs` would give, each at its key, and what the run would take here |
//! | `POST /api/runs` | `{"scenario": TOML text or JSON object, "policies": [spec, ...], "runs": N}` (`runs`: replications of each policy, 1 to 100, default 1) → 202 `{"id"}` (a UUIDv7: time-ordered, unique across restarts) or 400/429 `{"error"}` |
//! | `GET /api/runs/{id}/events` | server-sent events: `progress` (policy k of n, run j of N), `policy` (one report), `result` (the document), `error` |
//! | `GET /api/runs/{id}` | 200 the document `rebound storm --json` prints for the same input; 202 while running |
//! | `DELETE /api/runs/{id}` | cancels a run: 202 (it stops within a poll of the engine), 409 if it had ended, 404 |
//! | `GET /api/runs/{id}/report.html` | a finished run's report, as `rebound storm --html` writes it |
//! | `POST /api/advise` | `{"scenario": TOML text, "runs": N, "candidates": N, "target": P, "seed": S}` (all but `scenario` optional) → 202 `{"id", "plan"}` or 400/429 `{"error"}`: the stack advisor (`rebound advise --scenario`) on the page's stack, see `advise` |
//! | `GET /api/advise/{id}` | 200 `advise --json`'s document with `draft` and `evidence`; 202 `{"runs", "runs_at_most"}` while searching; 422 `{"error"}` |
//! | `DELETE /api/advise/{id}` | cancels a search: 202, 409 if it had ended, 404 |
//! | `POST /api/fit` | a trace file's bytes (OTLP JSON or protobuf, Jaeger JSON; `application/octet-stream`, at most 64 MiB; its name in `X-Trace-File`) → 200 `rebound fit --json`'s document with `notes`, or 400/413 `{"error"}`: see `fit` |
//!
//! Every request first passes `guard`: a `Host` naming the lab's own address (its IP literal,
//! `127.0.0.1`, `[::1]` or `localhost`, with its port; with `--allow-remote` on an unspecified
//! address, any IP literal with the port — never a DNS name, which DNS rebinding controls), no
//! foreign `Origin`, `application/json` bodies of at most 1 MiB arriving within 10 s (`POST /api/fit`:
//! also `application/octet-stream`, at most 64 MiB). Refusals
//! are JSON: 403, 415, 413, 408. `serve` closes connections whose headers take over 10 s and
//! gives open connections 1 s when the lab stops.

mod advise;
mod api;
mod bounds;
mod builtins;
mod check;
mod control;
mod cost;
mod execute;
mod fit;
mod id;
mod runs;
pub(crate) mod serve;
mod store;
mod stream;

use anyhow::{bail, Context, Result};
use rebound_live::guard;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

/// The storm lab in a browser: build a scenario, run policies, compare their storms.
///
/// Serves a page and a JSON API on loopback until Ctrl-C (which ends it within about 1 s, open
/// event streams or not). Runs are bounded (100,000 clients, 600 s simulated, 12 M
/// client-seconds, 12 policies, 60 s wall-clock, 4 at once). It answers only requests to its
/// own address (`Host`) from its own page (`Origin`), API bodies as application/json of at most
/// 1 MiB; headers must arrive within 10 s and a body within 10 s more.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example (serves until Ctrl-C; then open http://127.0.0.1:8090/):\n  $ rebound lab")]
pub struct Args {
    /// The listen address, IP:PORT or localhost:PORT (loopback unless --allow-remote); port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8090", value_parser = crate::usage::listen_addr)]
    listen: SocketAddr,
    /// Accept a non-loopback --listen address (the lab has no authentication).
    #[arg(long)]
    allow_remote: bool,
    /// Events per second of a core the lab's cost line and refusals assume, instead of measuring this machine (1000 to 1e12; e.g. to pin the speed of a shared machine)
    #[arg(long, value_name = "N", value_parser = crate::usage::number_in(1e3, 1e12))]
    events_per_s: Option<f64>,
}

/// Runs the command.
///
/// # Errors
/// A non-loopback address without `--allow-remote`, or an address that cannot be bound.
pub fn run(args: Args) -> Result<ExitCode> {
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        crate::output::note!(
            "error: invalid --listen {}: the lab binds loopback (127.0.0.0/8 or ::1) unless --allow-remote is given",
            args.listen
        );
        return Ok(ExitCode::from(2));
    }
    if let Some(rate) = args.events_per_s {
        cost::pin_speed(rate);
    }
    let rt = crate::runtime()?;
    rt.block_on(serve(args.listen))?;
    Ok(ExitCode::SUCCESS)
}

async fn serve(addr: SocketAddr) -> Result<()> {
    let listener =
        tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    if local.port() == 0 {
        bail!("the system gave no port for {addr}");
    }
    // A closed stdout (EPIPE) or a full disk ends the lab before it serves: `main` exits 0 or 1.
    crate::output::line(&format!("rebound lab: http://{local}/ (Ctrl-C to stop)"))?;
    let store = Arc::new(store::Store::new().context("cannot create the lab's directory of results")?);
    let runs = Arc::new(runs::Runs::new(store.clone()));
    let allowed = guard::Allowed { local, name: "the lab" };
    serve::serve(
        listener,
        api::router(allowed, runs).merge(fit::router(allowed, store.clone())),
        crate::shutdown_signal(),
    )
    .await;
    // (Runs still going hold the store too: remove its files now, not when they end.)
    store.remove();
    Ok(())
}
