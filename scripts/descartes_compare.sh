#!/usr/bin/env bash
# Scenario A and B of issue 40 on Rebound and on DesCartes (https://github.com/rupakm/DesCartes,
# a Rust discrete-event simulator), whole-process CPU seconds side by side, in one sitting.
#
# A: an M/M/1/K queue at rho = 0.8 (Poisson arrivals at 800/s, one server at 1000/s, K = 10),
#    every attempt with a 1 s timeout event, 1.2 M requests (1500 s, or SIM_SECONDS); B: the same, a shed attempt
#    retried at once up to 3 times. Rebound runs crates/rebound-sim/benches/scenarios/mm1k-{a,b}.toml
#    lengthened to 1500 s; DesCartes runs the same model written on its engine (below: one
#    component, its own Poisson and exponential samplers, as its examples/metastable_retry_storm.rs).
#    Both print their shed fraction: theory (Kleinrock, s. 3.6) gives 0.02429 for A.
#
# Usage: scripts/descartes_compare.sh [REPS]      (default 5 alternating repetitions per row)
# Env:   DESCARTES_GIT   where to clone DesCartes from: a URL or a local clone's path (default
#                        its GitHub repository)
#        DESCARTES_DIR   where to build it, outside this workspace (default /tmp/rebound-descartes)
#        REBOUND_BIN     a release `rebound` binary to time instead of building this checkout's
#        SIM_SECONDS     simulated seconds of each run (default 1500, in 1..=86400): Rebound's run
#                        then takes about a tenth of a second, read to the millisecond; 15000
#                        makes both runs ten times longer, and the ratio steadier
# Needs: git, cargo. Prints each tool's minimum and median CPU seconds (user + system, from
# bash's `time`: getrusage, to the millisecond) over the repetitions, run in turn (Rebound,
# DesCartes, Rebound, ...), and the ratio of the minima.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
[[ $reps =~ ^[1-9][0-9]?$ ]] || { echo "error: REPS must be a number in 1..99, got '$reps'" >&2; exit 2; }
sim_s=${SIM_SECONDS:-1500}
{ [[ $sim_s =~ ^[1-9][0-9]{0,4}$ ]] && [ "$sim_s" -le 86400 ]; } ||
    { echo "error: SIM_SECONDS must be a number in 1..=86400, got '$sim_s'" >&2; exit 2; }
src=${DESCARTES_GIT:-https://github.com/rupakm/DesCartes}
dir=${DESCARTES_DIR:-/tmp/rebound-descartes}
commit=fd5a6919dcfadeccc092d4eb7e63cd93de702f74 # the version measured in the guide (2026-11)

mkdir -p "$dir"
if [ ! -d "$dir/DesCartes/.git" ]; then git clone --quiet "$src" "$dir/DesCartes"; fi
git -C "$dir/DesCartes" -c advice.detachedHead=false checkout --quiet "$commit"
mkdir -p "$dir/mm1k/src"
cat >"$dir/mm1k/Cargo.toml" <<'EOF'
[package]
name = "mm1k-descartes"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
descartes-core = { path = "../DesCartes/des-core" }

[workspace]
EOF
cat >"$dir/mm1k/src/main.rs" <<'EOF'
//! Rebound's scenarios A and B (mm1k-{a,b}.toml) on DesCartes's engine: an M/M/1/K queue at
//! rho = 0.8 (Poisson arrivals at 800/s, one server at 1000/s, K = 10), every attempt with a 1 s
//! timeout event; B retries a shed or timed-out attempt at once, up to 3 times.
//! Usage: mm1k-descartes RETRIES SECONDS SEED
use descartes_core::dists::{ArrivalPattern, ExponentialDistribution, PoissonArrivals, ServiceTimeDistribution};
use descartes_core::{Component, Executor, Key, SimTime, Simulation, SimulationConfig};
use std::collections::VecDeque;
use std::time::Duration;

const QUEUE: usize = 9; // the waiting room: K = 10 with the one in service
const TIMEOUT: Duration = Duration::from_secs(1);

#[derive(Debug)]
enum Event {
    Arrival,
    Attempt { retries_left: u8 },
    Timeout { attempt: usize },
    Done { attempt: usize },
}

struct Mm1k {
    arrivals: PoissonArrivals,
    service: ExponentialDistribution,
    queue: VecDeque<usize>,
    busy: bool,
    /// Per attempt: retries left, and whether it still waits for its answer.
    attempts: Vec<(u8, bool)>,
    max_retries: u8,
    requests: u64,
    shed: u64,
    ok: u64,
    failed: u64,
    timeouts: u64,
}

impl Mm1k {
    fn start(&mut self, me: Key<Event>, s: &mut descartes_core::Scheduler) {
        if self.busy {
            return;
        }
        if let Some(attempt) = self.queue.pop_front() {
            self.busy = true;
            s.schedule(SimTime::from_duration(self.service.sample()), me, Event::Done { attempt });
        }
    }

    fn fail(&mut self, me: Key<Event>, s: &mut descartes_core::Scheduler, retries_left: u8) {
        if retries_left > 0 {
            s.schedule_now(me, Event::Attempt { retries_left: retries_left - 1 });
        } else {
            self.failed += 1;
        }
    }

    fn attempt(&mut self, me: Key<Event>, s: &mut descartes_core::Scheduler, retries_left: u8) {
        if self.queue.len() >= QUEUE {
            self.shed += 1;
            return self.fail(me, s, retries_left);
        }
        let attempt = self.attempts.len();
        self.attempts.push((retries_left, true));
        self.queue.push_back(attempt);
        s.schedule(SimTime::from_duration(TIMEOUT), me, Event::Timeout { attempt });
        self.start(me, s);
    }
}

impl Component for Mm1k {
    type Event = Event;

    fn process_event(&mut self, me: Key<Event>, event: &Event, s: &mut descartes_core::Scheduler) {
        match *event {
            Event::Arrival => {
                self.requests += 1;
                self.attempt(me, s, self.max_retries);
                s.schedule(SimTime::from_duration(self.arrivals.next_arrival_time()), me, Event::Arrival);
            }
            Event::Attempt { retries_left } => self.attempt(me, s, retries_left),
            Event::Timeout { attempt } => {
                let (retries_left, waiting) = self.attempts[attempt];
                if waiting {
                    self.attempts[attempt].1 = false;
                    self.timeouts += 1;
                    self.fail(me, s, retries_left);
                }
            }
            Event::Done { attempt } => {
                self.busy = false;
                if std::mem::replace(&mut self.attempts[attempt].1, false) {
                    self.ok += 1;
                }
                self.start(me, s);
            }
        }
    }
}

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let [retries, seconds, seed] = args[..] else { panic!("usage: mm1k-descartes RETRIES SECONDS SEED") };
    let config = SimulationConfig { seed };
    let mut sim = Simulation::new(config.clone());
    let model = Mm1k {
        arrivals: PoissonArrivals::from_config(&config, 800.0),
        service: ExponentialDistribution::from_config(&config, 1000.0),
        queue: VecDeque::new(),
        busy: false,
        attempts: Vec::new(),
        max_retries: retries as u8,
        requests: 0,
        shed: 0,
        ok: 0,
        failed: 0,
        timeouts: 0,
    };
    let key = sim.add_component(model);
    sim.schedule(SimTime::from_duration(Duration::ZERO), key, Event::Arrival);
    sim.execute(Executor::timed(SimTime::from_duration(Duration::from_secs(seconds))));
    let m: Mm1k = sim.remove_component(key).expect("the model");
    let attempts = m.attempts.len() as u64 + m.shed;
    println!(
        "requests {} attempts {} shed {} ({:.5} of attempts) ok {} failed {} timeouts {}",
        m.requests, attempts, m.shed, m.shed as f64 / attempts as f64, m.ok, m.failed, m.timeouts
    );
}
EOF

echo "building DesCartes ($commit) and its model in $dir ..." >&2
cargo build --quiet --release --manifest-path "$dir/mm1k/Cargo.toml" --target-dir "$dir/target"
if [ -n "${REBOUND_BIN:-}" ]; then
    rebound=$REBOUND_BIN # another build, to compare
else
    echo "building rebound (release) ..." >&2
    cargo build --quiet --release -p rebound-cli --bin rebound
    rebound="${CARGO_TARGET_DIR:-target}/release/rebound"
fi
descartes="$dir/target/release/mm1k-descartes"
for s in a b; do
    sed "s/^duration = .*/duration = \"${sim_s}s\"/" "crates/rebound-sim/benches/scenarios/mm1k-$s.toml" >"$dir/mm1k-$s.toml"
done

# cpu COMMAND... -> user + system seconds of the whole process (its output to $dir/last.out).
# (GNU time, used before, prints hundredths: up to 10 % of Rebound's run at 1500 s.)
TIMEFORMAT='%3U %3S'
cpu() {
    { time "$@" >"$dir/last.out" 2>&1; } 2>"$dir/time" || { cat "$dir/last.out" >&2; exit 1; }
    awk '{ printf "%.3f\n", $1 + $2 }' "$dir/time"
}
# stats: min and median of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f %.3f\n", v[1], v[int((NR + 1) / 2)] }'; }

echo "| scenario | Rebound CPU s (min, median) | DesCartes CPU s (min, median) | DesCartes / Rebound (minima) |"
echo "|---|---:|---:|---:|"
for row in "A|0|a" "B|3|b"; do
    IFS='|' read -r name retries s <<<"$row"
    : >"$dir/r.txt"
    : >"$dir/d.txt"
    for _ in $(seq "$reps"); do
        cpu "$rebound" storm --scenario "$dir/mm1k-$s.toml" --seed 1 --json >>"$dir/r.txt"
        reb_out=$(grep -oE '"(attempts|errors|events)": [0-9]+' "$dir/last.out" | awk 'NR <= 3' | tr -d '"' | tr '\n' ' ')
        cpu "$descartes" "$retries" "$sim_s" 1 >>"$dir/d.txt"
        desc_out=$(cat "$dir/last.out")
    done
    read -r rmin rmed < <(stats <"$dir/r.txt")
    read -r dmin dmed < <(stats <"$dir/d.txt")
    echo "| $name | $rmin, $rmed | $dmin, $dmed | $(awk -v d="$dmin" -v r="$rmin" 'BEGIN { printf "%.2f", d / r }') |"
    echo "   Rebound $name: $reb_out(shed fraction of attempts: errors / attempts for A)" >&2
    echo "   DesCartes $name: $desc_out" >&2
done
echo "($sim_s simulated seconds a run; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores)"
