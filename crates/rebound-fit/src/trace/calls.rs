//! Attempts into calls (retry chains), each request's own time, and the users' arrivals.

use super::{Analyzer, NONE, ORPHAN, ROOT, TOL};
use crate::acc::{Acc, MAX_ATTEMPTS, MAX_FANOUT, USERS};
use crate::span::Span;

impl Analyzer {
    /// Attempts into calls, per (owner, callee) group.
    pub(super) fn chain(&mut self, spans: &[Span], acc: &mut Acc) {
        self.call_failed.clear();
        self.call_failed.resize(spans.len(), false);
        #[derive(Clone, Copy)]
        struct Call {
            parent: u64,
            first: u64,
            last_end: u64,
            failed: bool,
            n: u32,
        }
        let mut calls: Vec<Call> = Vec::new();
        self.calls.clear();
        let mut g = 0;
        while g < self.attempts.len() {
            let (owner, callee, caller) =
                (self.attempts[g].owner, self.attempts[g].callee, self.attempts[g].caller);
            let end =
                g + self.attempts[g..].iter().take_while(|a| a.owner == owner && a.callee == callee).count();
            calls.clear();
            let edge = acc.edge(caller, callee);
            for a in &self.attempts[g..end] {
                edge.attempt_m.add((a.end - a.start) as f64 / 1e9);
                edge.resend_attr += a.resend.is_some() as u64;
                if a.unanswered {
                    edge.failed_durations.add((a.end - a.start) as f64 / 1e9);
                }
                let resent = match a.resend {
                    Some(r) => r > 0,
                    None => true,
                };
                let prev = calls
                    .iter_mut()
                    .filter(|c| {
                        c.parent == a.parent
                            && c.last_end <= a.start + TOL
                            && resent
                            && (c.failed || a.resend.is_some())
                    })
                    .max_by_key(|c| c.last_end);
                match prev {
                    Some(c) => {
                        let k = (c.n as usize - 1).min(edge.gaps.len() - 1);
                        edge.gap(k, c.last_end as f64 / 1e9, a.start.saturating_sub(c.last_end) as f64 / 1e9);
                        *c = Call { last_end: a.end, failed: a.failed, n: c.n + 1, ..*c };
                    }
                    None => calls.push(Call {
                        parent: a.parent,
                        first: a.start,
                        last_end: a.end,
                        failed: a.failed,
                        n: 1,
                    }),
                }
            }
            for c in &calls {
                self.calls.push((owner, c.first, c.last_end));
                let k = (c.n as usize - 1).min(MAX_ATTEMPTS - 1);
                edge.attempts[k] += 1;
                edge.failed[k] += c.failed as u64;
            }
            edge.fanout[calls.len().min(MAX_FANOUT)] += 1;
            if owner < ORPHAN && calls.iter().any(|c| c.failed) {
                self.call_failed[owner as usize] = true;
            }
            g = end;
        }
    }

    /// Each server span: its request, error, own time (span minus the union of its calls; a
    /// call spans its first attempt's start to its last's end, so the waits between retries
    /// are the policy's, not the service's).
    pub(super) fn serve(&mut self, spans: &[Span], acc: &mut Acc) {
        let mut iv: Vec<(u64, u64)> = Vec::new();
        for (i, s) in spans.iter().enumerate().filter(|(_, s)| s.kind.serves()) {
            iv.clear();
            // Calls are in owner order: skip to this span's.
            let from = self.calls.partition_point(|x| x.0 < i as u32);
            for &(_, a, b) in self.calls[from..].iter().take_while(|x| x.0 == i as u32) {
                iv.push((a.max(s.start), b.min(s.end)));
            }
            let own = s.duration().saturating_sub(union(&mut iv));
            let svc = acc.service(s.service);
            svc.requests += 1;
            svc.errors += s.error as u64;
            svc.own_errors += (s.error && !self.call_failed[i]) as u64;
            svc.own.add(own as f64 / 1e9);
            svc.own_m.add(own as f64 / 1e9);
            svc.sweep.add(s.start, s.end);
        }
    }

    /// Roots: an arrival each, at their start, and the entry service they reached.
    pub(super) fn roots(&mut self, spans: &[Span], acc: &mut Acc) {
        for (i, s) in spans.iter().enumerate() {
            if self.parent[i] != NONE || self.orphan[i] {
                continue;
            }
            acc.arrivals.add(s.start);
            let entry = if s.kind.serves() {
                Some(s.service)
            } else {
                acc.service(USERS).requests += 1;
                self.attempts.iter().find(|a| a.owner == ROOT).map(|a| a.callee)
            };
            if let Some(e) = entry {
                *acc.entries.entry(e).or_default() += 1;
            }
        }
    }
}

/// The length covered by the intervals (sorted here; empty ones ignored).
fn union(iv: &mut [(u64, u64)]) -> u64 {
    iv.sort_unstable();
    let (mut total, mut cur) = (0u64, None::<(u64, u64)>);
    for &(a, b) in iv.iter().filter(|(a, b)| b > a) {
        cur = match cur {
            Some((ca, cb)) if a <= cb => Some((ca, cb.max(b))),
            Some((ca, cb)) => {
                total += cb - ca;
                Some((a, b))
            }
            None => Some((a, b)),
        };
    }
    total + cur.map_or(0, |(a, b)| b - a)
}

#[cfg(test)]
mod tests {
    #[test]
    fn union_of_overlapping_calls() {
        let mut iv = vec![(10, 20), (0, 5), (15, 30), (40, 40)];
        assert_eq!(super::union(&mut iv), 25);
    }
}
