//! The `empirical` service time: a quantile table read from data
//! (`empirical:p0=1ms,p50=4ms,p90=9ms,p99=30ms,p100=80ms`), sampled by inverse transform with
//! linear interpolation between the given percentiles (the distribution function is piecewise
//! linear between them).
//!
//! Why: measured service times are often not log-normal (two modes: a cache hit and a miss; a
//! floor and a long tail). `rebound fit` writes this form when the log-normal's
//! Kolmogorov–Smirnov distance to the data is too large, so the lab serves what was measured.

use std::time::Duration;

/// Most points in one table.
pub const MAX_POINTS: usize = 16;

/// A quantile table: percentiles from 0 to 100, strictly increasing, with non-decreasing
/// durations in (0, 1 h].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantiles {
    len: u8,
    pct: [f64; MAX_POINTS],
    at: [Duration; MAX_POINTS],
}

impl Quantiles {
    /// The points, `(percentile, duration)`.
    pub fn points(&self) -> impl Iterator<Item = (f64, Duration)> + '_ {
        (0..self.len as usize).map(|i| (self.pct[i], self.at[i]))
    }

    /// The mean: each segment between two percentiles is uniform between its durations.
    pub fn mean(&self) -> Duration {
        let s: f64 = (1..self.len as usize)
            .map(|i| {
                (self.pct[i] - self.pct[i - 1]) / 100.0
                    * (self.at[i].as_secs_f64() + self.at[i - 1].as_secs_f64())
                    / 2.0
            })
            .sum();
        Duration::from_secs_f64(s)
    }

    /// The same table with each duration mapped by `f` (such as the live twin's time scale).
    ///
    /// # Errors
    /// `f`'s first error.
    pub fn try_map<E>(&self, mut f: impl FnMut(Duration) -> Result<Duration, E>) -> Result<Quantiles, E> {
        let mut q = *self;
        for d in &mut q.at[..self.len as usize] {
            *d = f(*d)?;
        }
        Ok(q)
    }

    /// The table in nanoseconds, for sampling.
    pub fn table(&self) -> EmpiricalTable {
        let mut t = EmpiricalTable { len: self.len, u: [0.0; MAX_POINTS], ns: [0.0; MAX_POINTS] };
        for i in 0..self.len as usize {
            t.u[i] = self.pct[i] / 100.0;
            t.ns[i] = self.at[i].as_nanos() as f64;
        }
        t
    }

    /// Reads `p0=DURATION,...,p100=DURATION` (the part after `empirical:`).
    ///
    /// # Errors
    /// A message saying which rule a point breaks.
    pub fn parse(args: &str) -> Result<Quantiles, String> {
        let mut q = Quantiles { len: 0, pct: [0.0; MAX_POINTS], at: [Duration::ZERO; MAX_POINTS] };
        for kv in args.split(',') {
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("`{kv}` is not pN=DURATION"))?;
            let p: f64 = k
                .trim()
                .strip_prefix('p')
                .and_then(|p| p.parse().ok())
                .ok_or_else(|| format!("`{k}` is not pN"))?;
            if !(0.0..=100.0).contains(&p) {
                return Err(format!("p{p}: a percentile must be in [0, 100]"));
            }
            let d = humantime::parse_duration(v.trim()).map_err(|_| format!("`{v}` is not a duration"))?;
            if d.is_zero() || d > Duration::from_secs(3600) {
                return Err(format!("p{p}={v}: a duration must be in (0, 1h]"));
            }
            let n = q.len as usize;
            if n == MAX_POINTS {
                return Err(format!("at most {MAX_POINTS} points"));
            }
            if n > 0 && (p <= q.pct[n - 1] || d < q.at[n - 1]) {
                return Err(format!("p{p}: percentiles must increase and durations must not decrease"));
            }
            q.pct[n] = p;
            q.at[n] = d;
            q.len += 1;
        }
        if q.len < 2 || q.pct[0] != 0.0 || q.pct[q.len as usize - 1] != 100.0 {
            return Err("the table must start at p0 and end at p100".into());
        }
        Ok(q)
    }
}

/// A quantile table ready to sample, in nanoseconds.
#[derive(Debug, Clone, Copy)]
pub struct EmpiricalTable {
    len: u8,
    u: [f64; MAX_POINTS],
    ns: [f64; MAX_POINTS],
}

impl EmpiricalTable {
    /// The duration at probability `u` in [0, 1), in nanoseconds: interpolated linearly
    /// between the two points around it.
    #[inline]
    pub fn at(&self, u: f64) -> f64 {
        let n = self.len as usize;
        let i = self.u[1..n].partition_point(|&x| x <= u).min(n - 2);
        let (u0, u1) = (self.u[i], self.u[i + 1]);
        let f = ((u - u0) / (u1 - u0)).clamp(0.0, 1.0);
        self.ns[i] + f * (self.ns[i + 1] - self.ns[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_samples_and_averages() {
        let q = Quantiles::parse("p0=1ms,p50=3ms,p100=5ms").unwrap();
        assert_eq!(q.mean(), Duration::from_millis(3));
        let t = q.table();
        assert_eq!(t.at(0.0), 1e6);
        assert_eq!(t.at(0.25), 2e6);
        assert_eq!(t.at(0.75), 4e6);
        assert_eq!(t.at(0.999_999_9).round(), 5e6);
        for bad in [
            "p0=1ms",
            "p1=1ms,p100=2ms",
            "p0=2ms,p100=1ms",
            "p0=1ms,p0=2ms,p100=3ms",
            "p0=0s,p100=1ms",
            "p0=1ms,p101=2ms",
            "x=1ms",
        ] {
            assert!(Quantiles::parse(bad).is_err(), "{bad}");
        }
    }
}
