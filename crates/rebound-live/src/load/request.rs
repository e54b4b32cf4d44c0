//! One user request: its attempts sent, retried under the policy by
//! [`rebound_retry::retry_async`], each attempt counted in its second and its body drained
//! (at most [`MAX_BODY`] bytes).

use super::{ending, Ctx, ATTEMPT_HEADER, MAX_BODY};
use crate::error::chain;
use rebound_retry::budget::RetryCause;
use rebound_retry::http::{parse_retry_after, RetryableStatuses};
use rebound_retry::{retry_async, Failure, RetryEvent};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant, SystemTime};

#[derive(Debug)]
enum AttemptError {
    Status(u16, Option<Duration>),
    Transport,
}

/// One user request, retried under the policy: `true` if it succeeded.
pub(super) async fn request(ctx: &Ctx, seed: u64) -> bool {
    let started = Instant::now();
    let root = ctx.config.traces.as_ref().map(|(r, _)| r.request());
    let parent = root.as_ref().map(crate::traces::Parent::context);
    let statuses = RetryableStatuses::default();
    let retry_on = ctx.config.retry_on;
    let number = AtomicU64::new(0);
    let end = ending::AttemptEnd::default();
    let mut executor = retry_async(ctx.config.policy.backoff_seeded(seed), || {
        attempt(ctx, number.fetch_add(1, Relaxed).saturating_add(1), parent, &end)
    })
    .when(move |e: &AttemptError| {
        let retryable = match e {
            AttemptError::Status(code, _) => statuses.contains(*code),
            AttemptError::Transport => true,
        };
        retryable && retry_on.allows(RetryCause::Error)
    })
    .retry_timeouts(retry_on.allows(RetryCause::Timeout))
    .hint(|e: &AttemptError| match e {
        AttemptError::Status(_, hint) => *hint,
        AttemptError::Transport => None,
    })
    .attempt_timeout(ctx.config.timeout)
    .notify(|ev: &RetryEvent<'_, AttemptError>| {
        // An attempt cut by the run's end is in flight at the end, and its retry never runs.
        if end.was_cut() {
            return;
        }
        let timed_out = matches!(ev.failure, Failure::TimedOut(_));
        let ns = u64::try_from(ev.delay.as_nanos()).unwrap_or(u64::MAX);
        let _ = ctx.waited_ns.fetch_update(Relaxed, Relaxed, |w| Some(w.saturating_add(ns)));
        ctx.count(|s| {
            s.retries += 1;
            s.timedout += u64::from(timed_out);
        });
    });
    if let Some(b) = &ctx.config.budget {
        executor = executor.budget(b.clone());
    }
    if let Some(t) = &ctx.config.throttle {
        executor = executor.throttle(t.clone());
    }
    if let Some(rb) = &ctx.config.retry_breaker {
        executor = executor.retry_breaker(rb.clone());
    }
    let result = executor.call().await;
    if let Some(root) = root {
        root.end(result.as_ref().map(|_| ()).map_err(|_| "gave_up"));
    }
    match result {
        Ok(()) => {
            ctx.latencies.lock().expect("no panics while locked").push(started.elapsed().as_secs_f64() * 1e3);
            true
        }
        // The last attempt's timeout came once the run was ending: the request was still
        // going at the end (its attempt counts in flight), as if the end had come first.
        Err(_) if end.was_cut() => {
            ctx.cut.fetch_add(1, Relaxed);
            false
        }
        Err(e) => {
            if matches!(e.last, Failure::TimedOut(_)) {
                ctx.count(|s| s.timedout += 1);
            }
            ctx.gave_up.fetch_add(1, Relaxed);
            false
        }
    }
}

/// An attempt sent to replica `replica`: leaves its count of outstanding attempts when it
/// ends, and counts a timeout there if it was dropped unanswered and not cut by the run's end
/// ([`ending::AttemptEnd`]; the executor drops an attempt only at its timeout).
struct Sent<'a> {
    ctx: &'a Ctx,
    end: &'a ending::AttemptEnd,
    replica: usize,
    answered: bool,
    span: Option<crate::traces::ClientSpan>,
}

impl Drop for Sent<'_> {
    fn drop(&mut self) {
        self.ctx.outstanding[self.replica].fetch_sub(1, Relaxed);
        if self.answered {
            return;
        }
        if !self.end.cut(self.ctx) {
            self.ctx.timedout_at[self.replica].fetch_add(1, Relaxed);
        } else if let Some(span) = &mut self.span {
            span.abandon_as("cancelled");
        }
    }
}

struct InFlight<'a>(&'a AtomicU64);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}

async fn attempt(
    ctx: &Ctx,
    number: u64,
    parent: Option<&opentelemetry::Context>,
    end: &ending::AttemptEnd,
) -> Result<(), AttemptError> {
    end.begin();
    let mut begun = ending::Begun { ctx, end, finished: false };
    let result = send(ctx, number, parent, end).await;
    begun.finished = true;
    result
}

async fn send(
    ctx: &Ctx,
    number: u64,
    parent: Option<&opentelemetry::Context>,
    end: &ending::AttemptEnd,
) -> Result<(), AttemptError> {
    let _permit = ctx.permits.acquire().await.expect("the semaphore is never closed");
    ctx.in_flight.fetch_add(1, Relaxed);
    let _guard = InFlight(&ctx.in_flight);
    let c = &ctx.config;
    let load = |i: usize| ctx.outstanding[i].load(Relaxed);
    let i = crate::stack::choose(c.balancer, c.replicas.len() + 1, &ctx.turn, load, &ctx.lb_rng);
    ctx.outstanding[i].fetch_add(1, Relaxed);
    let url = if i == 0 { &c.url } else { &c.replicas[i - 1] };
    let mut headers = reqwest::header::HeaderMap::new();
    let span = match (&c.traces, parent) {
        (Some((r, peer)), Some(p)) => Some(r.client(p, url, peer, number, &mut headers)),
        _ => None,
    };
    let mut sent = Sent { ctx, end, replica: i, answered: false, span };
    let answer = ctx.client.get(url).headers(headers).header(ATTEMPT_HEADER, number).send().await;
    let resp = match answer {
        Ok(resp) => resp,
        Err(e) => {
            sent.answered = true;
            if let Some(s) = &mut sent.span {
                s.transport_error();
            }
            ctx.count(|s| s.errors += 1);
            let msg = chain(&e);
            *ctx.last_error.lock().expect("no panics while locked") = Some(msg);
            return Err(AttemptError::Transport);
        }
    };
    let status = resp.status();
    let header =
        resp.headers().get(reqwest::header::RETRY_AFTER).map(|v| v.to_str().unwrap_or("").to_string());
    let drained = drain(resp).await;
    // Answered once the body is read (a timeout while reading it is a timeout there).
    sent.answered = true;
    if let Some(s) = &mut sent.span {
        s.answered(status.as_u16());
    }
    if let Err(e) = drained {
        ctx.count(|s| s.errors += 1);
        *ctx.last_error.lock().expect("no panics while locked") = Some(e);
        return Err(AttemptError::Transport);
    }
    if status.is_success() {
        ctx.count(|s| s.ok += 1);
        return Ok(());
    }
    ctx.count(|s| s.errors += 1);
    let hint = header.as_deref().and_then(|v| parse_retry_after(v, SystemTime::now()));
    if header.is_some() && hint.is_none() {
        ctx.malformed.fetch_add(1, Relaxed);
    }
    Err(AttemptError::Status(status.as_u16(), hint))
}

/// Reads and discards a response's body, at most [`MAX_BODY`] bytes of it.
async fn drain(mut resp: reqwest::Response) -> Result<(), String> {
    let mut read = 0u64;
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                read = read.saturating_add(chunk.len() as u64);
                if read > MAX_BODY {
                    return Err(format!(
                        "response body over {} MiB (rebound load reads at most that)",
                        MAX_BODY >> 20
                    ));
                }
            }
            // A body cut short is the server's business: the status has been counted.
            Ok(None) | Err(_) => return Ok(()),
        }
    }
}
