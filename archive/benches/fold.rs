//! The fold: how fast a whole game's stored events fold into its state and
//! score, per game, from archive text (the bulk scoring path) and from
//! parsed values (the service's path), plus a full replay validation.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use umpire_archive::{simulate_one, Archive};

fn games() -> Vec<Archive> {
    let registry = umpire_games::registry();
    ["arboretum", "treeblox", "draft_cider", "flower_fields"]
        .iter()
        .map(|game| {
            simulate_one(&registry, game, &serde_json::Value::Null, 1, 0, 5_000)
                .expect("a random game")
        })
        .collect()
}

fn fold(c: &mut Criterion) {
    let registry = umpire_games::registry();
    for archive in games() {
        let line = archive.to_json_line();
        let mut group = c.benchmark_group(format!("fold/{}", archive.game));
        group.throughput(Throughput::Elements(archive.version()));
        group.bench_function("score_archive_text", |b| {
            b.iter(|| umpire_archive::score_archive_text(&registry, &line, "bench"))
        });
        group.bench_function("apply_json", |b| {
            b.iter_batched(
                || {
                    registry
                        .get(&archive.game)
                        .unwrap()
                        .new_match(&archive.options)
                        .unwrap()
                },
                |mut state| {
                    for event in &archive.events {
                        state.apply_json(&event.payload).unwrap();
                    }
                    state.summary()
                },
                BatchSize::SmallInput,
            )
        });
        group.bench_function("replay_validation", |b| {
            b.iter(|| {
                umpire_archive::replay(&registry, &archive, |_| {})
                    .unwrap()
                    .is_valid()
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = fold
}
criterion_main!(benches);
