//! `rebound storm --bench --clients N`: the engine against a bare heap, in one process.

use assert_cmd::Command;

fn rebound() -> Command {
    Command::cargo_bin("rebound").unwrap()
}

#[test]
fn bench_with_clients_prints_events_the_heap_reference_their_ratio_and_bytes_per_client() {
    let out = rebound().args(["storm", "--bench", "--clients", "1000"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "1000 clients",
        "million events/s",
        "bare BinaryHeap pop+push, 1000 pending",
        "ratio:",
        "bytes per client",
    ] {
        assert!(text.contains(want), "no {want:?} in:\n{text}");
    }
}

#[test]
fn bench_clients_out_of_range_or_without_bench_is_a_usage_error() {
    for args in [
        &["storm", "--bench", "--clients", "999"][..],
        &["storm", "--bench", "--clients", "10000001"],
        &["storm", "--clients", "1000"],
    ] {
        let out = rebound().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--clients"), "{args:?}");
    }
}
