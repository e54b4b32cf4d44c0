//! Response bodies read from the store a piece at a time: a stored file as it is (`GET
//! /api/runs/{id}`, the HTML report), and a run's server-sent events, whose `policy` and
//! `result` events carry stored files. A body is fed by a task through a channel of
//! [`DEPTH`] pieces of at most [`CHUNK`] bytes, so a slow reader holds at most that much of
//! the lab's memory, and a reader that leaves ends its task (the channel closes).

use super::runs::{Phase, Snapshot};
use super::store::{Stored, CHUNK};
use axum::body::{Body, Bytes};
use serde_json::json;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::sync::{mpsc, watch};

/// Pieces in flight to one reader.
pub const DEPTH: usize = 4;

/// How often an idle event stream sends a comment, so proxies and browsers keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

type Tx = mpsc::Sender<std::io::Result<Bytes>>;

/// A body fed by `produce`, which stops (its sends fail) once the reader has gone.
fn piped<F, Fut>(produce: F) -> Body
where
    F: FnOnce(Tx) -> Fut,
    Fut: Future<Output = Result<(), Gone>> + Send + 'static,
{
    let (tx, rx) = mpsc::channel(DEPTH);
    tokio::spawn(produce(tx));
    Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|piece| (piece, rx))
    }))
}

/// The reader hung up (or the file could not be read, which was sent to it as an error).
struct Gone;

async fn send(tx: &Tx, piece: impl Into<Bytes>) -> Result<(), Gone> {
    tx.send(Ok(piece.into())).await.map_err(|_| Gone)
}

/// Sends `stored` in pieces; with `data_lines`, each newline is followed by `data: `, which
/// continues a server-sent event's data on the next line.
async fn send_file(tx: &Tx, stored: &Stored, data_lines: bool) -> Result<(), Gone> {
    let mut file = match stored.open().await {
        Ok(f) => f,
        Err(e) => return tx.send(Err(e)).await.map_err(|_| Gone).and(Err(Gone)),
    };
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match file.read(&mut buf).await {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) => return tx.send(Err(e)).await.map_err(|_| Gone).and(Err(Gone)),
        };
        let piece = &buf[..n];
        if data_lines && piece.contains(&b'\n') {
            let mut out = Vec::with_capacity(n + 64);
            for (i, line) in piece.split(|b| *b == b'\n').enumerate() {
                if i > 0 {
                    out.extend_from_slice(b"\ndata: ");
                }
                out.extend_from_slice(line);
            }
            send(tx, out).await?;
        } else {
            send(tx, Bytes::copy_from_slice(piece)).await?;
        }
    }
}

/// A stored file as a response body.
pub fn file(stored: Arc<Stored>) -> Body {
    piped(move |tx| async move { send_file(&tx, &stored, false).await })
}

/// A run's events: where it is (`progress`: `{"policy": k, "total": n, "run": j, "runs": N}`,
/// policy k of n with j of its N replications done), each policy's report as it finishes
/// (`policy`), then the document (`result`) or the error (`error`); a comment every
/// [`KEEP_ALIVE`] while nothing happens.
pub fn events(rx: watch::Receiver<Snapshot>) -> Body {
    piped(move |tx| run_events(tx, rx))
}

async fn run_events(tx: Tx, mut rx: watch::Receiver<Snapshot>) -> Result<(), Gone> {
    let mut sent = 0;
    let mut progress = (usize::MAX, u32::MAX);
    loop {
        let snapshot = rx.borrow_and_update().clone();
        // "policy k of n, run j of N": sent when either moves.
        let now = (snapshot.reports.len(), snapshot.runs_done);
        let going = now.0 < snapshot.total && matches!(snapshot.phase, Phase::Running);
        if now != progress && sent == snapshot.reports.len() && going {
            progress = now;
            let p =
                json!({ "policy": now.0 + 1, "total": snapshot.total, "run": now.1, "runs": snapshot.runs });
            send(&tx, format!("event: progress\ndata: {p}\n\n")).await?;
        }
        if let Some(report) = snapshot.reports.get(sent) {
            send(
                &tx,
                format!("event: policy\ndata: {{\"index\":{sent},\"total\":{},\"report\":", snapshot.total),
            )
            .await?;
            send_file(&tx, report, true).await?;
            send(&tx, "}\n\n").await?;
            sent += 1;
            continue;
        }
        match snapshot.phase {
            Phase::Done(doc) => {
                send(&tx, "event: result\ndata: ").await?;
                send_file(&tx, &doc, true).await?;
                return send(&tx, "\n\n").await;
            }
            Phase::Failed(e) => {
                return send(&tx, format!("event: error\ndata: {}\n\n", json!({ "error": e }))).await;
            }
            // A reader that leaves stops counting as a watcher at once (see `control::watchdog`).
            Phase::Running => tokio::select! {
                changed = rx.changed() => if changed.is_err() { return Ok(()) },
                () = tx.closed() => return Err(Gone),
                () = tokio::time::sleep(KEEP_ALIVE) => send(&tx, ":\n\n").await?,
            },
        }
    }
}
