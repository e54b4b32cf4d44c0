//! One whole trace to counts: who called whom (a client span → the server span it caused),
//! which attempts are retries of one call, each request's own service time, errors and the
//! users' arrival.
//!
//! A client span's *owner* is the request it was made for: its nearest server ancestor, or the
//! users when it has none (a root client, as a load generator writes). A server span whose
//! parent is not a client span (the caller was not instrumented) is its own attempt. Attempts
//! from one owner to one callee, in start order, chain into calls: an attempt that starts after
//! a failed one of the same parent span ended (or carries `http.request.resend_count` ≥ 1)
//! continues it; anything else starts a new call.

use crate::acc::{Acc, USERS};

mod calls;
use crate::error::Warnings;
use crate::span::Span;
use std::collections::HashMap;

const NONE: u32 = u32::MAX;
const ROOT: u32 = u32::MAX - 1;
const ORPHAN: u32 = u32::MAX - 2;
/// Ancestors climbed at most (a cycle of parents stops here).
const MAX_DEPTH: usize = 256;
/// Clock tolerance when ordering spans of different services: 1 ms.
const TOL: u64 = 1_000_000;

#[derive(Debug, Clone, Copy)]
struct Attempt {
    owner: u32,
    callee: u32,
    caller: u32,
    parent: u64,
    start: u64,
    end: u64,
    failed: bool,
    /// Failed without an HTTP answer (a timeout or a lost connection).
    unanswered: bool,
    resend: Option<u32>,
}

/// Reusable buffers for analysing traces.
#[derive(Debug, Default)]
pub struct Analyzer {
    idx: HashMap<u64, u32>,
    parent: Vec<u32>,
    orphan: Vec<bool>,
    server_child: Vec<u32>,
    call_failed: Vec<bool>,
    attempts: Vec<Attempt>,
    /// Each call's extent (first attempt's start to last attempt's end), by owner.
    calls: Vec<(u32, u64, u64)>,
    peers: HashMap<u32, u32>,
    /// The window kept, in ns since the epoch (`--window`).
    pub window: Option<(u64, u64)>,
}

fn at(s: &Span, file: &str) -> String {
    match s.line {
        0 => format!("{file} trace {:032x}", s.trace),
        l => format!("{file}:{l}"),
    }
}

impl Analyzer {
    /// Adds one whole trace to `acc`.
    pub fn trace(&mut self, spans: &[Span], file: &str, acc: &mut Acc, w: &mut Warnings) {
        let Some(start) = spans.iter().map(|s| s.start).min() else { return };
        if let Some((a, b)) = self.window {
            if start < a || start >= b {
                acc.outside += 1;
                return;
            }
        }
        self.link(spans, file, w);
        acc.traces += 1;
        acc.spans += spans.len() as u64;
        acc.first = if acc.first == 0 { start } else { acc.first.min(start) };
        acc.last = acc.last.max(spans.iter().map(|s| s.end).max().unwrap_or(start));
        self.collect_attempts(spans, file, w);
        self.chain(spans, acc);
        self.serve(spans, acc);
        self.roots(spans, acc);
    }

    /// Parents, orphans and each client span's server child.
    fn link(&mut self, spans: &[Span], file: &str, w: &mut Warnings) {
        let n = spans.len();
        self.idx.clear();
        for (i, s) in spans.iter().enumerate() {
            if self.idx.insert(s.id, i as u32).is_some() {
                w.add("span id given twice in one trace (the last kept)", || at(s, file));
            }
        }
        self.parent.clear();
        self.orphan.clear();
        self.server_child.clear();
        self.server_child.resize(n, NONE);
        for s in spans {
            let p = if s.parent == 0 { None } else { self.idx.get(&s.parent).copied() };
            self.orphan.push(s.parent != 0 && p.is_none());
            self.parent.push(p.unwrap_or(NONE));
        }
        let orphans = self.orphan.iter().filter(|&&o| o).count() as u64;
        if let Some(i) = self.orphan.iter().position(|&o| o) {
            w.add_n("spans without parents (their parent is not in the trace)", orphans, || {
                at(&spans[i], file)
            });
        }
        for (i, s) in spans.iter().enumerate() {
            let p = self.parent[i];
            if p != NONE && s.kind.serves() && spans[p as usize].kind.calls() {
                self.server_child[p as usize] = i as u32;
            }
        }
    }

    /// The request span `i` was made for: its nearest server ancestor, [`ROOT`] (the users) or
    /// [`ORPHAN`] (the top of its line has a parent missing).
    fn owner(&self, spans: &[Span], i: usize) -> u32 {
        let mut p = self.parent[i];
        let mut top = i;
        for _ in 0..MAX_DEPTH {
            if p == NONE {
                return if self.orphan[top] { ORPHAN } else { ROOT };
            }
            if spans[p as usize].kind.serves() {
                return p;
            }
            top = p as usize;
            p = self.parent[top];
        }
        ORPHAN
    }

    fn collect_attempts(&mut self, spans: &[Span], file: &str, w: &mut Warnings) {
        self.attempts.clear();
        for (i, s) in spans.iter().enumerate() {
            if let (Some(peer), sc) = (s.peer, self.server_child[i]) {
                if sc != NONE {
                    self.peers.insert(peer, spans[sc as usize].service);
                }
            }
        }
        for (i, s) in spans.iter().enumerate() {
            let implicit = s.kind.serves()
                && self.parent[i] != NONE
                && !spans[self.parent[i] as usize].kind.calls()
                && spans[self.parent[i] as usize].service != s.service;
            if !s.kind.calls() && !implicit {
                continue;
            }
            let owner = self.owner(spans, i);
            if owner == ORPHAN {
                continue;
            }
            let caller = if owner == ROOT { USERS } else { spans[owner as usize].service };
            let sc = if implicit { i as u32 } else { self.server_child[i] };
            let callee = match (sc, s.peer) {
                (NONE, Some(p)) => self.peers.get(&p).copied().unwrap_or(p),
                (NONE, None) => {
                    w.add("client spans with neither a server span nor a peer attribute, skipped", || {
                        at(s, file)
                    });
                    continue;
                }
                (c, _) => spans[c as usize].service,
            };
            if caller == callee {
                w.add("calls from a service to itself, not modelled", || at(s, file));
                continue;
            }
            let failed = s.error || (sc != NONE && spans[sc as usize].error);
            let unanswered = failed && s.status == 0;
            if sc != NONE && !implicit {
                let c = &spans[sc as usize];
                if c.start + TOL < s.start || (!failed && c.end > s.end + TOL) {
                    w.add("server spans outside their client span (clock skew between services)", || {
                        at(c, file)
                    });
                }
            }
            let parent = if implicit { u64::MAX } else { s.parent };
            self.attempts.push(Attempt {
                owner,
                callee,
                caller,
                parent,
                start: s.start,
                end: s.end,
                failed,
                unanswered,
                resend: s.resend,
            });
        }
        self.attempts.sort_unstable_by_key(|a| (a.owner, a.callee, a.start));
    }
}
