//! One copy of an attempt sent to one replica: its headers (the attempt number, the per-attempt
//! timeout, the deadline), the link's latency and loss each way, its span, and its count when it
//! ends — timed out, or abandoned once another copy of its attempt answered, if it never finished.

use super::{Call, CallError, ATTEMPT_HEADER, DEADLINE_HEADER, TIMEOUT_HEADER};
use crate::stack::metrics::AttemptOutcome;
use crate::traces::ClientSpan;
use opentelemetry::Context;
use rebound_retry::http::parse_retry_after;
use rebound_sim::retrier::RetryAfter;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::time::SystemTime;

/// A copy in flight: counted when it ends, as timed out (or abandoned, once another copy of
/// its attempt answered) if it never finished.
struct Copy<'a> {
    call: &'a Call,
    replica: usize,
    won: Option<&'a AtomicBool>,
    outcome: Option<AttemptOutcome>,
    span: Option<ClientSpan>,
}

impl Drop for Copy<'_> {
    fn drop(&mut self) {
        self.call.outstanding[self.replica].fetch_sub(1, Relaxed);
        let o = self.outcome.unwrap_or(match self.won {
            Some(w) if w.load(Relaxed) => AttemptOutcome::Abandoned,
            _ => AttemptOutcome::TimedOut,
        });
        if let (AttemptOutcome::Abandoned, Some(span)) = (o, &mut self.span) {
            span.abandon_as("cancelled");
        }
        self.call.counters.attempt(o);
        if o == AttemptOutcome::TimedOut {
            self.call.counters.timed_out_at(self.replica);
        }
    }
}

impl Call {
    /// One copy to one replica.
    pub(super) async fn send(
        &self,
        sent: &AtomicU32,
        won: Option<&AtomicBool>,
        deadline: SystemTime,
        parent: Option<&Context>,
    ) -> Result<(), CallError> {
        let k = sent.fetch_add(1, Relaxed).saturating_add(1);
        let replica = self.pick();
        self.outstanding[replica].fetch_add(1, Relaxed);
        let mut headers = reqwest::header::HeaderMap::new();
        let span = match (&self.traces, parent) {
            (Some(r), Some(p)) => {
                Some(r.client(p, &self.peers[replica], &self.to, u64::from(k), &mut headers))
            }
            _ => None,
        };
        let mut copy = Copy { call: self, replica, won, outcome: None, span };
        if !self.one_way().await {
            return std::future::pending().await;
        }
        let ms = u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX);
        let unix_ms = deadline.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_millis());
        let req = self
            .client
            .get(&self.peers[replica])
            .headers(headers)
            .header(ATTEMPT_HEADER, k)
            .header(TIMEOUT_HEADER, ms)
            .header(DEADLINE_HEADER, unix_ms.to_string());
        let mut code = None;
        let answer = match req.send().await {
            Ok(resp) => {
                let status = resp.status();
                code = Some(status.as_u16());
                let hint = resp
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| parse_retry_after(v, SystemTime::now()));
                let _ = resp.bytes().await;
                if status.is_success() {
                    Ok(())
                } else {
                    let honoured = matches!(self.retry_after, RetryAfter::Honour);
                    Err(CallError::Status(status.as_u16(), hint.filter(|_| honoured)))
                }
            }
            Err(_) => Err(CallError::Transport),
        };
        if !self.one_way().await {
            return std::future::pending().await;
        }
        // The span ends where the caller has the answer: after the body and the way back.
        match (&mut copy.span, code) {
            (Some(s), Some(c)) => s.answered(c),
            (Some(s), None) => s.transport_error(),
            _ => {}
        }
        copy.outcome = Some(if answer.is_ok() { AttemptOutcome::Ok } else { AttemptOutcome::Error });
        if answer.is_ok() {
            if let Some(w) = won {
                w.store(true, Relaxed);
            }
        }
        answer
    }
}
