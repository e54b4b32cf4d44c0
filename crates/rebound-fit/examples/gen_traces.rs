//! Writes synthetic OTLP JSON traces of a known stack (users → front → api → db, api retrying
//! db) for `rebound fit`'s benchmark:
//! `cargo run --release -p rebound-fit --example gen_traces -- 1000000 > /tmp/traces-1m.jsonl`
//! (arguments: spans, default 1000000; users' requests per second, default 200).

fn main() -> std::io::Result<()> {
    let arg = |i: usize| std::env::args().nth(i).and_then(|s| s.parse::<f64>().ok());
    let spans = arg(1).unwrap_or(1e6) as u64;
    let stack =
        rebound_fit::synth::Stack { rate: arg(2).unwrap_or(200.0), ..rebound_fit::synth::Stack::default() };
    let out = std::io::BufWriter::new(std::io::stdout().lock());
    let n = rebound_fit::synth::write(&stack, spans, 512, out)?;
    eprintln!("{n} spans");
    Ok(())
}
