//! `storm --bench`: the simulator's own throughput on its benchmark scenario.

use super::*;

pub(super) fn bench(policy: Option<&Spec>, clients: Option<u32>, seed: Option<u64>) -> Result<ExitCode> {
    let mut scenario = rebound_sim::bench::scenario(clients.unwrap_or(100_000));
    if let Some(seed) = seed {
        scenario.seed = seed;
    }
    let spec = policy.cloned().unwrap_or_else(|| rebound_sim::default_policies().swap_remove(1));
    let b = rebound_sim::bench::run(&scenario, &spec);
    let (r, wall) = (&b.storm, b.wall.as_secs_f64());
    output::line(&format!("scenario: {}", describe(&scenario)))?;
    output::line(&format!("policy:   {}", r.policy))?;
    let cpu = b.cpu.map_or(String::new(), |c| format!(", {:.2} s CPU", c.as_secs_f64()));
    let median = match b.runs.len() {
        1 => String::new(),
        n => format!("; median of {n} runs"),
    };
    output::line(&format!(
        "events:   {} in {wall:.2} s wall{cpu} = {:.2} million events/s (one core{median})",
        r.events,
        b.events_per_s() / 1e6
    ))?;
    if let (Some((before, peak)), Some(per_client)) = (b.rss_kib, b.bytes_per_client()) {
        output::line(&format!(
            "memory:   peak RSS {:.1} MiB ({per_client:.0} bytes per client above the {:.1} MiB before the run)",
            peak as f64 / 1024.0,
            before as f64 / 1024.0
        ))?;
    }
    output::line(&format!(
        "result:   recovered {}, peak concurrency {}, amplification {:.2}",
        r.recovered, r.peak_concurrency, r.amplification
    ))?;
    if let Some(n) = clients {
        // As many pop+push pairs as the storm had events, at most 20 million.
        let ops = r.events.clamp(1, 20_000_000);
        let heap = rebound_sim::bench::heap_ops_per_s(n, ops);
        let queue = rebound_sim::bench::queue_ops_per_s(n, ops);
        output::line(&format!(
            "heap:     bare BinaryHeap pop+push, {n} pending: {:.2} million ops/s",
            heap / 1e6
        ))?;
        output::line(&format!(
            "queue:    the engine's event queue, same loop: {:.2} million ops/s",
            queue / 1e6
        ))?;
        output::line(&format!(
            "ratio:    storm events/s / bare heap ops/s = {:.2}",
            b.events_per_s() / heap
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
