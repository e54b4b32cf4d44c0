//! `rebound fit --listen ADDR`: an OTLP/HTTP receiver (`POST /v1/traces`, protobuf or JSON,
//! gzip or not) on loopback for a bounded time, so that a collector's `otlphttp` exporter (or an
//! SDK's) can point at it; then the fit runs on what arrived.
//!
//! Bodies go from the HTTP handlers to this thread's [`Fitter`] through a bounded channel, one
//! at a time; each is answered 200 (an empty `ExportTraceServiceResponse`) or 400 with the
//! reason, as the OTLP specification asks.

use anyhow::Context;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use rebound_fit::Fitter;
use std::io::Read;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// The largest body taken, compressed or not: 64 MiB.
pub const MAX_BODY: usize = 64 << 20;

type Job = (Vec<u8>, bool, oneshot::Sender<Result<(), String>>);

/// Receives on `addr` for `for_`, reading every body into `fitter`.
///
/// # Errors
/// The address cannot be bound; a body past `--max-spans` ends the reception with that error.
pub fn receive(addr: SocketAddr, for_: Duration, fitter: &mut Fitter) -> anyhow::Result<()> {
    let rt = crate::runtime()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("--listen: cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        crate::output::note_line(&format!(
            "rebound fit: receiving OTLP/HTTP on http://{local}/v1/traces for {}",
            humantime::format_duration(for_)
        ));
        let (tx, mut rx) = mpsc::channel::<Job>(16);
        let app = Router::new()
            .route("/v1/traces", post(traces))
            .layer(DefaultBodyLimit::max(MAX_BODY))
            .with_state(tx);
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let server = tokio::spawn(crate::lab::serve::serve(listener, app, async {
            let _ = stop_rx.await;
        }));
        let deadline = tokio::time::sleep(for_);
        tokio::pin!(deadline);
        let mut failed = None;
        let mut n = 0u64;
        loop {
            tokio::select! {
                () = &mut deadline => break,
                job = rx.recv() => {
                    let Some((body, json, reply)) = job else { break };
                    n += 1;
                    let r = fitter.read_body(&body, json, &format!("{local} request {n}"));
                    let _ = reply.send(r.as_ref().map(|_| ()).map_err(ToString::to_string));
                    if let Err(e @ rebound_fit::FitError::TooManySpans { .. }) = r {
                        failed = Some(e);
                        break;
                    }
                }
            }
        }
        let _ = stop_tx.send(());
        let _ = server.await;
        match failed {
            Some(e) => Err(crate::usage::usage(e.to_string())),
            None => Ok(()),
        }
    })
}

async fn traces(
    State(tx): State<mpsc::Sender<Job>>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, Vec<u8>) {
    let text = |h: header::HeaderName| {
        headers.get(h).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase()
    };
    let json = text(header::CONTENT_TYPE).starts_with("application/json");
    let body = match text(header::CONTENT_ENCODING).as_str() {
        "" | "identity" => body.to_vec(),
        "gzip" => match gunzip(&body) {
            Ok(b) => b,
            Err(e) => return (StatusCode::BAD_REQUEST, e.into_bytes()),
        },
        other => {
            return (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("Content-Encoding {other}: gzip or none").into_bytes(),
            )
        }
    };
    let (reply, answer) = oneshot::channel();
    if tx.send((body, json, reply)).await.is_err() {
        return (StatusCode::SERVICE_UNAVAILABLE, b"rebound fit stopped receiving".to_vec());
    }
    match answer.await {
        Ok(Ok(())) if json => (StatusCode::OK, b"{}".to_vec()),
        Ok(Ok(())) => (StatusCode::OK, Vec::new()),
        Ok(Err(e)) => (StatusCode::BAD_REQUEST, e.into_bytes()),
        Err(_) => (StatusCode::SERVICE_UNAVAILABLE, b"rebound fit stopped receiving".to_vec()),
    }
}

/// Decompresses a gzip body, refusing more than [`MAX_BODY`] bytes out.
fn gunzip(b: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(b)
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("gzip: {e}"))?;
    if out.len() > MAX_BODY {
        return Err(format!("more than {} MiB once decompressed", MAX_BODY >> 20));
    }
    Ok(out)
}
