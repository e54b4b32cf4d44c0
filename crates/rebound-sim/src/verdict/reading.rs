//! Goodput read against the offered load, second by second: the pieces of the verdict rule
//! ([`super`]'s module docs) — down, back, and the partial last second merged pro rata.

use super::Offered;
use crate::report::Point;

/// Goodput read against the offered load, second by second.
pub(super) struct Reading {
    /// Successes in each second.
    ok: Vec<f64>,
    /// What was offered in each second, and its length.
    pub offered: Offered,
}

impl Reading {
    /// `offered` fitted to the points (a missing second offers what the last one did), and
    /// a partial last second merged into the one before it, pro rata: `20.001s` is judged as
    /// 19 seconds and one of 1.001 s, not as a 21st second of 1 ms without a success.
    pub(super) fn new(points: &[Point], offered: &Offered) -> Reading {
        let mut ok: Vec<f64> = points.iter().map(|p| p.ok as f64).collect();
        let mut o = offered.clone();
        let last = o.level.last().copied().unwrap_or(1.0);
        o.level.resize(ok.len(), last);
        o.len.resize(ok.len(), 1.0);
        let n = ok.len();
        if n >= 2 && o.len[n - 1] < 1.0 {
            let (l, len) = (o.level.pop().unwrap_or(0.0), o.len.pop().unwrap_or(0.0));
            let extra = ok.pop().unwrap_or(0.0);
            let (pl, plen) = (o.level[n - 2], o.len[n - 2]);
            o.level[n - 2] = (pl * plen + l * len) / (plen + len);
            o.len[n - 2] = plen + len;
            ok[n - 2] += extra;
        }
        Reading { ok, offered: o }
    }

    /// The seconds judged.
    pub(super) fn n(&self) -> usize {
        self.ok.len()
    }

    /// Successes per second over `[from, to)`, pro rata of the seconds' lengths (0 if empty).
    pub(super) fn goodput(&self, from: usize, to: usize) -> f64 {
        let to = to.min(self.n());
        let span = self.offered.span(from, to);
        if from >= to || span <= 0.0 {
            return 0.0;
        }
        self.ok[from..to].iter().sum::<f64>() / span
    }

    /// The expected goodput over `[from, to)` at `per` per unit of offered level.
    fn expected(&self, from: usize, to: usize, per: f64) -> f64 {
        per * self.offered.mean(from, to)
    }

    /// Whether `[from, to)` is not down: goodput at least half of the expected.
    pub(super) fn up(&self, from: usize, to: usize, per: f64) -> bool {
        self.goodput(from, to) >= self.expected(from, to, per) / 2.0
    }

    /// The start of the first whole window in `[from, to)`, stepping by `w`, that is down.
    pub(super) fn first_down(&self, from: usize, to: usize, w: usize, per: f64) -> Option<usize> {
        let to = to.min(self.n());
        (from..(to + 1).saturating_sub(w)).step_by(w).find(|&x| !self.up(x, x + w, per))
    }

    /// Seconds from `after` to the first `s` where goodput is back (see the module docs), the
    /// window shortened to the seconds left when fewer than `w` remain; `None` when it never
    /// is, when nothing is left to judge, or when the run ends down.
    pub(super) fn back(&self, after: usize, w: usize, per: f64, threshold: f64) -> Option<u64> {
        let n = self.n();
        let w = w.min(n.saturating_sub(after));
        if w == 0 || !self.up(n - w, n, per) {
            return None;
        }
        let reached = |a: usize, b: usize| self.goodput(a, b) >= threshold * self.expected(a, b, per);
        let no_relapse =
            |s: usize| (s + w..(n + 1).saturating_sub(w)).step_by(w).all(|x| self.up(x, x + w, per));
        (after..=n - w)
            .find(|&s| reached(s, s + w) && reached(s, n) && no_relapse(s))
            .map(|s| (s - after) as u64)
    }
}
