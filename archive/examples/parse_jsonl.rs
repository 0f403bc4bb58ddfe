//! The parsing baseline for `scripts/bench-bulk.sh`: reads JSON Lines and
//! parses every line with plain serde_json (into `Value`, or skipping with
//! `IgnoredAny`), on one thread, scoring nothing.
//!
//! `cargo run --release -p umpire-archive --example parse_jsonl -- FILE [value|ignored]`

use std::io::BufRead;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: parse_jsonl FILE [value|ignored]");
    let mode = args.next().unwrap_or_else(|| "value".into());
    let file = std::fs::File::open(&path).expect("open the input");
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let started = Instant::now();
    let (mut lines, mut bytes) = (0u64, 0u64);
    for line in reader.lines() {
        let line = line.expect("read a line");
        bytes += line.len() as u64 + 1;
        if line.trim().is_empty() {
            continue;
        }
        if mode == "ignored" {
            let _: serde::de::IgnoredAny = serde_json::from_str(&line).expect("JSON");
        } else {
            let _: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        }
        lines += 1;
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "parse_jsonl ({mode}): {lines} documents, {:.1} MB in {seconds:.2}s: {:.0} docs/s, {:.1} MB/s",
        bytes as f64 / 1e6,
        lines as f64 / seconds,
        bytes as f64 / 1e6 / seconds
    );
}
