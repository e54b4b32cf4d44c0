//! The live service's connection loop: hyper's HTTP/1 server with half-closed connections
//! allowed, so that a request whose caller gave up and closed its socket before the service
//! read it — an attempt that waited in a stopped (SIGSTOP) service's accept backlog past its
//! timeout — is still read and served, as the model's callee, which never knows its caller
//! gave up, serves it. (axum's own `serve` closes such a connection unread.) Headers must
//! arrive within [`HEADER_TIMEOUT`]. Once told to
//! stop, open connections get [`crate::server::SHUTDOWN_GRACE`] to finish, then are dropped.

use crate::server::SHUTDOWN_GRACE;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// How long a request's headers may take to arrive once the connection is open or idle: 2
/// minutes (then the connection is closed), so a client that never sends them holds its
/// socket for a bounded time. Longer than the callers' pools keep an idle connection
/// ([`POOL_IDLE`]): the caller closes an idle connection first, and never sends a request on
/// one the service is closing.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a calling service keeps an idle pooled connection: 60 s.
pub const POOL_IDLE: Duration = Duration::from_secs(60);

/// Serves `router` on `listener` until `shutdown` completes.
pub(super) async fn serve(listener: TcpListener, router: Router, shutdown: impl Future<Output = ()>) {
    let (close_tx, close_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(connection(stream, router.clone(), close_rx.clone()));
                }
                // Out of file descriptors and the like: wait a little rather than spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            },
            () = &mut shutdown => break,
        }
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    let _ = close_tx.send(true);
    let drain = async { while connections.join_next().await.is_some() {} };
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, drain).await;
    connections.abort_all();
}

/// One connection: HTTP/1 with keep-alive and half-closes, closed gracefully when `close`
/// turns true.
async fn connection(stream: TcpStream, router: Router, mut close: watch::Receiver<bool>) {
    let _ = stream.set_nodelay(true);
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let mut router = router.clone();
        async move {
            let response = tower::Service::call(&mut router, req).await;
            Ok::<_, Infallible>(response.unwrap_or_else(|e| match e {}))
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .half_close(true)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = close.wait_for(|c| *c) => conn.as_mut().graceful_shutdown(),
    }
    let _ = conn.await;
}
