//! The storm run: S5's clients against S5's server, one policy at a time.
//!
//! Each client thinks for an exponentially distributed time, sends a request, and on an error or
//! a timeout asks its retry policy for a wait; it starts its next think time only when the
//! request succeeded or the policy gave up (a closed loop, as S5's goroutines are). The network
//! is loopback: no delay.

use crate::queue::{nanos, EventQueue, Nanos, SECOND};

/// FIFO lanes of the event queue: events scheduled a fixed time ahead.
const TICKS: usize = 0;
const TIMEOUTS: usize = 1;
use crate::report::{self, Point, Recorder};
use crate::retrier::Retrier;
use crate::scenario::{OutageKind, Scenario};
use crate::server::{Arrival, S5Server, TickResult};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Exp};
use rebound_retry::budget::RetryCause;
use rebound_retry::throttle::Admission;
use rebound_retry::Spec;
use serde::Serialize;
use std::time::Duration;

/// The result of one policy in one scenario.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StormReport {
    /// The policy, as its canonical spec.
    pub policy: String,
    /// Whether goodput came back to ≥ 90 % of the pre-outage baseline (see [`crate::report`]).
    pub recovered: bool,
    /// Seconds from the end of the outage to recovery, if it recovered.
    pub recovery_s: Option<f64>,
    /// The most requests in the server at once.
    pub peak_concurrency: u64,
    /// Attempts sent per successful request: the retry amplification.
    pub amplification: f64,
    /// Total time clients spent waiting between attempts, in seconds.
    pub total_wait_s: f64,
    /// Mean goodput over the 10 s before the outage, in requests per second.
    pub baseline_ok_per_s: f64,
    /// Attempts sent.
    pub attempts: u64,
    /// Successful attempts.
    pub ok: u64,
    /// Attempts failed with an error.
    pub errors: u64,
    /// Attempts timed out.
    pub timedout: u64,
    /// Requests given up by the policy.
    pub gave_up: u64,
    /// Time-averaged number of requests in the server.
    pub mean_concurrency: f64,
    /// Mean time an answered request spent in the server, in milliseconds.
    pub mean_residence_ms: f64,
    /// Events the simulator processed.
    pub events: u64,
    /// One point per simulated second.
    pub series: Vec<Point>,
}

#[derive(Debug, Clone, Copy)]
enum Ev {
    Think(u32),
    Retry(u32),
    /// A send the throttle has already admitted (after its pacing wait).
    Admitted(u32),
    Timeout(u32, u32),
    Tick(u32, u32),
    OutageStart,
    OutageEnd,
}

#[derive(Debug, Clone, Copy, Default)]
struct Client {
    seq: u32,
    waiting: bool,
}

enum Failure {
    Error,
    TimedOut,
}

struct Storm<'a> {
    sc: &'a Scenario,
    q: EventQueue<Ev>,
    rng: SmallRng,
    think: Exp<f64>,
    timeout: Nanos,
    clients: Vec<Client>,
    retrier: Retrier,
    server: S5Server,
    rec: Recorder,
    /// ∫ in_flight dt, in request-nanoseconds, and the time it was last advanced.
    area: u128,
    last: Nanos,
}

/// Runs `scenario` with every client following `spec`, to the end of the run.
///
/// Deterministic: the same scenario (seed included) and spec give the same report.
pub fn run(scenario: &Scenario, spec: &Spec) -> StormReport {
    run_until(scenario, spec, Until::End)
}

/// How long [`run_until`] simulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// To the scenario's end.
    End,
    /// Until the verdict cannot change: after the outage, a server whose delay at its current
    /// concurrency exceeds the whole run can answer nothing before the end (every request is
    /// younger than the run), so its concurrency can only grow. The run stops there; goodput,
    /// and so `recovered` and `recovery_s`, are exactly those of a full run, while the other
    /// totals cover only the simulated part. For `rebound map`'s hundreds of cells.
    Decided,
}

/// Runs `scenario` with every client following `spec`, as far as `until` says.
pub fn run_until(scenario: &Scenario, spec: &Spec, until: Until) -> StormReport {
    let mut s = Storm::new(scenario, spec);
    let end = nanos(scenario.duration);
    let outage_over = match scenario.outage.kind {
        OutageKind::None => 0,
        _ => nanos(scenario.outage.end),
    };
    let mut next_check = outage_over.max(SECOND);
    while let Some((t, ev)) = s.q.pop() {
        if t >= end {
            break;
        }
        s.advance(t);
        s.dispatch(t, ev);
        s.rec.concurrency(t, s.server.in_flight());
        if until == Until::Decided && t >= next_check {
            if s.server.past_saving(end) {
                break;
            }
            next_check = t + SECOND;
        }
    }
    s.advance(end);
    s.finish(spec)
}

impl<'a> Storm<'a> {
    fn new(sc: &'a Scenario, spec: &Spec) -> Storm<'a> {
        let n = sc.clients.count;
        let mut s = Storm {
            sc,
            q: EventQueue::new(),
            rng: SmallRng::seed_from_u64(sc.seed),
            think: Exp::new(1.0 / sc.clients.think.as_secs_f64()).expect("think > 0 is validated"),
            timeout: nanos(sc.clients.timeout),
            clients: vec![Client::default(); n as usize],
            retrier: Retrier::new(spec, n, sc.seed),
            server: S5Server::new(sc.delay_model(), &sc.server),
            rec: Recorder::new(nanos(sc.duration)),
            area: 0,
            last: 0,
        };
        for c in 0..n {
            s.think_then_send(0, c);
        }
        if sc.outage.kind != OutageKind::None {
            s.q.push(nanos(sc.outage.start), Ev::OutageStart);
            s.q.push(nanos(sc.outage.end), Ev::OutageEnd);
        }
        s
    }

    fn advance(&mut self, t: Nanos) {
        self.area += u128::from(self.server.in_flight()) * u128::from(t - self.last);
        self.last = t;
    }

    fn dispatch(&mut self, t: Nanos, ev: Ev) {
        match ev {
            Ev::Think(c) => {
                self.retrier.start(c, t);
                self.send(t, c);
            }
            Ev::Retry(c) => self.send(t, c),
            Ev::Admitted(c) => self.send_now(t, c),
            Ev::Timeout(c, seq) => {
                if self.is_waiting(c, seq) {
                    self.fail(t, c, Failure::TimedOut);
                }
            }
            Ev::Tick(slot, gen) => match self.server.tick_at(slot, gen, t) {
                TickResult::Answered { client, seq, residence } => {
                    self.rec.residence += u128::from(residence);
                    self.rec.answered += 1;
                    if self.is_waiting(client, seq) {
                        self.succeed(t, client);
                    }
                }
                TickResult::Again => self.q.push_lane(TICKS, t + self.server.tick(), Ev::Tick(slot, gen)),
                TickResult::Nothing => {}
            },
            Ev::OutageStart => self.outage_start(t),
            Ev::OutageEnd => self.outage_end(t),
        }
    }

    fn is_waiting(&self, c: u32, seq: u32) -> bool {
        let cl = self.clients[c as usize];
        cl.waiting && cl.seq == seq
    }

    fn send(&mut self, t: Nanos, c: u32) {
        match self.retrier.admit(t) {
            Admission::Send => {}
            Admission::Wait(d) => return self.q.push(t.saturating_add(nanos(d)), Ev::Admitted(c)),
            Admission::Reject => {
                self.rec.at(t).rejected += 1;
                return self.retry_or_give_up(t, c, RetryCause::Error, false);
            }
        }
        self.send_now(t, c);
    }

    fn send_now(&mut self, t: Nanos, c: u32) {
        let cl = &mut self.clients[c as usize];
        cl.seq = cl.seq.wrapping_add(1);
        cl.waiting = true;
        let seq = cl.seq;
        self.rec.at(t).sent += 1;
        match self.server.arrive(c, seq, t) {
            Arrival::Refused => return self.fail(t, c, Failure::Error),
            Arrival::Admitted { slot, gen } => {
                self.q.push_lane(TICKS, t + self.server.tick(), Ev::Tick(slot, gen))
            }
            Arrival::Queued | Arrival::Dropped => {}
        }
        self.q.push_lane(TIMEOUTS, t.saturating_add(self.timeout), Ev::Timeout(c, seq));
    }

    fn fail(&mut self, t: Nanos, c: u32, how: Failure) {
        self.clients[c as usize].waiting = false;
        let p = self.rec.at(t);
        let cause = match how {
            Failure::Error => {
                p.errors += 1;
                RetryCause::Error
            }
            Failure::TimedOut => {
                p.timedout += 1;
                RetryCause::Timeout
            }
        };
        self.retry_or_give_up(t, c, cause, true);
    }

    fn retry_or_give_up(&mut self, t: Nanos, c: u32, cause: RetryCause, sent: bool) {
        match self.retrier.on_failure(c, t, cause, sent) {
            Some(d) => {
                self.rec.waited += d.as_nanos();
                self.q.push(t.saturating_add(nanos(d)), Ev::Retry(c));
            }
            None => {
                self.rec.at(t).gave_up += 1;
                self.think_then_send(t, c);
            }
        }
    }

    fn succeed(&mut self, t: Nanos, c: u32) {
        self.clients[c as usize].waiting = false;
        self.rec.at(t).ok += 1;
        let pause = self.retrier.on_success(c, t);
        self.rec.waited += pause.as_nanos();
        self.think_then_send(t.saturating_add(nanos(pause)), c);
    }

    fn think_then_send(&mut self, t: Nanos, c: u32) {
        let think = self.think.sample(&mut self.rng);
        self.q.push(t.saturating_add(nanos(Duration::from_secs_f64(think.min(1e9)))), Ev::Think(c));
    }

    fn outage_start(&mut self, t: Nanos) {
        match self.sc.outage.kind {
            OutageKind::Pause => self.server.pause(),
            OutageKind::HardDown => {
                for (c, seq) in self.server.go_down() {
                    if self.is_waiting(c, seq) {
                        self.fail(t, c, Failure::Error);
                    }
                }
            }
            OutageKind::CapacityCut => self.server.set_slowdown(self.sc.outage.slowdown),
            OutageKind::None => {}
        }
    }

    fn outage_end(&mut self, t: Nanos) {
        match self.sc.outage.kind {
            OutageKind::Pause => {
                for (slot, gen, at) in self.server.resume(t) {
                    self.q.push(at, Ev::Tick(slot, gen));
                }
            }
            OutageKind::HardDown => self.server.come_up(),
            OutageKind::CapacityCut => self.server.set_slowdown(1.0),
            OutageKind::None => {}
        }
    }

    fn finish(self, spec: &Spec) -> StormReport {
        let sc = self.sc;
        let pts = &self.rec.points;
        let total = |f: fn(&Point) -> u64| pts.iter().map(f).sum::<u64>();
        let (ok, attempts) = (total(|p| p.ok), total(|p| p.sent));
        let outage = (sc.outage.kind != OutageKind::None)
            .then(|| (sc.outage.start.as_secs(), sc.outage.end.as_secs().min(pts.len() as u64)));
        let baseline = report::baseline(pts, outage);
        let window = (sc.status_interval.as_secs() as usize).clamp(1, pts.len().max(1));
        let recovery = match outage {
            Some((_, end)) => report::recovery(pts, end, window, baseline),
            // Without an outage there is nothing to recover from, but a run without a single
            // success is not "recovered".
            None => (ok > 0).then_some(0),
        };
        let dur = nanos(sc.duration) as f64;
        StormReport {
            policy: spec.to_string(),
            recovered: recovery.is_some(),
            recovery_s: recovery.map(|s| s as f64),
            peak_concurrency: self.rec.peak_concurrency,
            amplification: if ok == 0 { attempts as f64 } else { attempts as f64 / ok as f64 },
            total_wait_s: self.rec.waited as f64 / SECOND as f64,
            baseline_ok_per_s: baseline,
            attempts,
            ok,
            errors: total(|p| p.errors),
            timedout: total(|p| p.timedout),
            gave_up: total(|p| p.gave_up),
            mean_concurrency: self.area as f64 / dur,
            mean_residence_ms: if self.rec.answered == 0 {
                0.0
            } else {
                self.rec.residence as f64 / self.rec.answered as f64 / 1e6
            },
            events: self.q.popped(),
            series: self.rec.points,
        }
    }
}
