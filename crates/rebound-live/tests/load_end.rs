//! The load generator's count at the run's end: an attempt whose timeout fires once the run is
//! ending is counted once — in flight at the end, not also timed out. On a saturated machine
//! the runtime wakes late, and the run's end and many attempts' timeouts fire in one turn; it
//! counted those attempts twice (attempts above the requests made, with no retry allowed).

use rebound_live::load::{run, Arrivals, LoadConfig};
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// A server that accepts connections and never answers (each attempt ends at its timeout or
/// at the run's end), for at most `secs` seconds.
fn silent_server(secs: u64) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let until = std::time::Instant::now() + Duration::from_secs(secs);
        let mut held = Vec::new();
        while std::time::Instant::now() < until {
            match listener.accept() {
                Ok((s, _)) => held.push(s),
                Err(_) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
    });
    format!("http://{addr}/")
}

fn config(url: String) -> LoadConfig {
    LoadConfig {
        clients: 1,
        rate: 1000.0,
        timeout: Duration::from_secs(1),
        duration: Duration::from_millis(1200),
        arrivals: Arrivals::Constant,
        ..LoadConfig::new(url, "constant:base=1ms,max-retries=0".parse().unwrap())
    }
}

/// 1000 requests/s for 1.2 s at a server that never answers, one attempt each, 1 s timeouts:
/// the attempts of 0.0..0.4 s time out at 1.0..1.4 s, around the run's end at 1.2 s. The
/// runtime's only thread is held for 0.5 s from the first per-second callback (about 1 s in),
/// so the run's end and the pending timeouts fire in one turn. Every request made one attempt:
/// attempts = requests, and the attempts in flight at the end are those of the requests cut.
///
/// The count is checked on every run. Whether the run made the situation the test is for
/// depends on the machine: the hold must begin by 1.15 s (then the end at 1.2 s falls inside
/// it with the timeouts of the attempts begun in the 0.35 s before 0.5 s still pending); a
/// machine too busy to call back by then is named on stderr and the situation not judged.
#[tokio::test(flavor = "current_thread")]
async fn an_attempt_timing_out_as_the_run_ends_is_counted_once() {
    let url = silent_server(10);
    let began = Instant::now();
    let mut hold_began = None;
    let r = run(config(url), std::future::pending(), |_| {
        if hold_began.is_none() {
            hold_began = Some(began.elapsed());
            std::thread::sleep(Duration::from_millis(500));
        }
    })
    .await
    .unwrap();
    let attempts = r.ok + r.errors + r.timedout + r.in_flight_at_end;
    let requests = r.ok + r.gave_up + r.cut;
    assert_eq!(r.retries, 0, "{r:?}");
    assert_eq!(
        (attempts, r.in_flight_at_end),
        (requests, r.cut),
        "attempts {attempts} (ok {} + errors {} + timed out {} + in flight {}) for {requests} requests \
         (ok + gave up {} + cut {})",
        r.ok,
        r.errors,
        r.timedout,
        r.in_flight_at_end,
        r.gave_up,
        r.cut
    );
    let hold = hold_began.expect("the run lasts past its first second");
    if hold > Duration::from_millis(1150) {
        eprintln!(
            "machine too busy: the first per-second callback came {hold:?} after the start \
             (by 1.15 s needed), so the end and the timeouts may not have met: not judged"
        );
        return;
    }
    assert!(r.cut >= 100, "the run's end cut attempts: {r:?}");
}
