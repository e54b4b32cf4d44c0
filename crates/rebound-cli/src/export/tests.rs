//! Golden outputs of every format and every note.

use super::*;

fn hops<'a>(pairs: &[(&'a str, &'a str)]) -> Vec<Hop<'a>> {
    pairs.iter().map(|&(name, spec)| Hop { name, spec }).collect()
}

#[test]
fn rebound_format_is_the_canonical_spec_per_hop() {
    let out = render(
        ExportFormat::Rebound,
        &hops(&[
            ("users", "preset:grpc-a6"),
            ("front->api", "exponential:base=50ms,max-attempts=3,jitter=full"),
        ]),
    )
    .unwrap();
    assert_eq!(
        out.text,
        "# Rebound retry policies, one spec per hop: str::parse::<rebound_retry::Spec>(), a scenario's `policy`, \
         RetryMiddleware or rebound-tower's layer\n\
         users = \"exponential:base=100ms,factor=2,cap=1s,jitter=full,max-retries=3,budget=grpc:10:0.1\"\n\
         \"front->api\" = \"exponential:base=50ms,factor=2,jitter=full,max-retries=2\"\n"
    );
    assert!(out.notes.is_empty());
    // Every line parses back to the spec given.
    let table: toml::Table = out.text.parse().unwrap();
    let back: rebound_retry::Spec = table["front->api"].as_str().unwrap().parse().unwrap();
    assert_eq!(back, "exponential:base=50ms,max-attempts=3,jitter=full".parse().unwrap());
}
