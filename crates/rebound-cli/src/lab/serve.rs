//! The lab's connection loop: hyper's HTTP/1 server with a timer, so that a client that sends
//! its headers slowly (or never) is cut after [`HEADER_TIMEOUT`], and a shutdown that ends the
//! process within [`SHUTDOWN_GRACE`] whatever connections are open — an event stream a browser
//! keeps open never ends by itself, so a graceful shutdown that waited for it would never end.

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// How long a request's headers may take to arrive: 10 s (then the connection is closed).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long open connections get to finish once the lab is told to stop: 1 s. Past it they
/// are dropped, so Ctrl-C ends the lab within about a second.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` until `shutdown` completes, then gives open connections
/// [`SHUTDOWN_GRACE`] to finish and drops the rest.
pub async fn serve(listener: TcpListener, router: Router, shutdown: impl Future<Output = ()>) {
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
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, async { while connections.join_next().await.is_some() {} })
        .await;
    connections.abort_all();
}

/// One connection: HTTP/1 with keep-alive, headers within [`HEADER_TIMEOUT`], closed
/// gracefully when `close` turns true.
async fn connection(stream: TcpStream, router: Router, mut close: watch::Receiver<bool>) {
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
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = close.wait_for(|c| *c) => conn.as_mut().graceful_shutdown(),
    }
    let _ = conn.await;
}
