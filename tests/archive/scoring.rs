//! Bulk scoring from files: good games scored right, each bad one an error
//! row, the batch never stopped.

use std::io::Write;

use umpire_archive::pipeline::{score_inputs, Input, ScoreSettings};
use umpire_archive::score::parse_csv_rows;
use umpire_archive::ChainCheck;
use umpire_archive::{OutputFormat, RowWriter, ScoreRow};

use crate::support::{rechain, registry, simulated, GAMES};

fn score(inputs: &[Input], format: OutputFormat) -> Vec<ScoreRow> {
    score_with(inputs, format, ScoreSettings::default())
}

fn score_with(inputs: &[Input], format: OutputFormat, settings: ScoreSettings) -> Vec<ScoreRow> {
    let mut out = Vec::new();
    {
        let mut writer = RowWriter::new(format, &mut out).unwrap();
        score_inputs(&registry(), inputs, settings, &mut writer, &mut |_| {}).unwrap();
    }
    let text = String::from_utf8(out).unwrap();
    match format {
        OutputFormat::Csv => parse_csv_rows(&text).unwrap(),
        OutputFormat::JsonLines => text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect(),
    }
}

#[test]
fn a_mix_of_good_and_bad_games_yields_an_error_row_for_each_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let good: Vec<_> = GAMES
        .iter()
        .flat_map(|game| (0..3).map(move |index| simulated(game, index)))
        .collect();
    let mut unknown_game = good[0].clone();
    unknown_game.game = "chess".into();
    let mut bad_event = good[5].clone();
    bad_event.events[3].payload = serde_json::json!({"type": "no_such_event"});
    let mut lines: Vec<String> = good.iter().map(|a| a.to_json_line()).collect();
    // Bad lines among the good: each must become one error row in place.
    lines.insert(2, "{ this is not json".into());
    lines.insert(5, unknown_game.to_json_line());
    lines.insert(8, bad_event.to_json_line());
    lines.insert(9, r#"{"game_id": "x", "game": "treeblox"}"#.into());
    let jsonl = dir.path().join("games.jsonl");
    let mut file = std::fs::File::create(&jsonl).unwrap();
    for line in &lines {
        writeln!(file, "{line}").unwrap();
        writeln!(file).unwrap(); // blank lines are skipped
    }
    drop(file);
    // And one pretty-printed archive document in a subdirectory.
    std::fs::create_dir(dir.path().join("more")).unwrap();
    std::fs::write(
        dir.path().join("more/one.json"),
        serde_json::to_string_pretty(&good[1]).unwrap(),
    )
    .unwrap();

    for format in [OutputFormat::Csv, OutputFormat::JsonLines] {
        let rows = score(&[Input::Path(dir.path().to_path_buf())], format);
        assert_eq!(rows.len(), lines.len() + 1, "{format:?}");
        let errors: Vec<&ScoreRow> = rows.iter().filter(|r| r.error.is_some()).collect();
        assert_eq!(errors.len(), 4, "{format:?}: {errors:#?}");
        // Line numbers count the blank lines too: line i is at 2i + 1.
        let sources: Vec<&str> = errors.iter().map(|r| r.source.as_str()).collect();
        for (index, bad) in [2usize, 5, 8, 9].iter().enumerate() {
            assert!(
                sources[index].ends_with(&format!("games.jsonl:{}", 2 * bad + 1)),
                "{format:?}: {sources:?}"
            );
        }
        assert_eq!(errors[1].game, "chess");
        assert!(
            errors[2].error.as_ref().unwrap().contains("event 4"),
            "{:?}",
            errors[2]
        );
        assert_eq!(errors[3].game_id, "x");
        // Each error row's stable code, in CSV as in JSON Lines.
        let codes: Vec<Option<&str>> = errors.iter().map(|r| r.code.as_deref()).collect();
        assert_eq!(
            codes,
            [
                Some("invalid_archive"),
                Some("unknown_game"),
                // The changed payload breaks the chain before it is folded.
                Some("archive_hash_mismatch"),
                Some("invalid_archive"),
            ],
            "{format:?}"
        );
        assert!(rows
            .iter()
            .filter(|r| r.error.is_none())
            .all(|r| r.code.is_none()));
        let scored: Vec<&ScoreRow> = rows.iter().filter(|r| r.error.is_none()).collect();
        // The pretty document (directory walk is sorted: games.jsonl, more/one.json).
        let expected: Vec<_> = good.iter().chain([&good[1]]).collect();
        assert_eq!(scored.len(), expected.len());
        for (row, archive) in scored.iter().zip(expected) {
            let summary = umpire_archive::replay(&registry(), archive, |_| {})
                .unwrap()
                .game
                .state
                .summary();
            assert_eq!(row.game_id, archive.game_id.to_string());
            assert_eq!(row.totals, summary.totals, "{}", archive.game);
            assert_eq!(row.winners, summary.winners);
            assert_eq!(row.is_final, Some(summary.is_final));
            assert_eq!(row.events, archive.version());
        }
    }
    // Trusted, the changed payload is folded, and does not fold.
    let trusted = score_with(
        &[Input::Path(dir.path().to_path_buf())],
        OutputFormat::Csv,
        ScoreSettings {
            chain: ChainCheck::Trust,
            ..ScoreSettings::default()
        },
    );
    let errors: Vec<&ScoreRow> = trusted.iter().filter(|r| r.error.is_some()).collect();
    assert_eq!(errors.len(), 4, "{errors:#?}");
    assert_eq!(errors[2].code.as_deref(), Some("archive_does_not_fold"));
    assert!(errors[2].error.as_ref().unwrap().contains("event 4"));
}

#[test]
fn chunks_split_long_inputs_at_line_ends_only() {
    // More than one chunk's worth of lines: every game is still one row.
    let archive = simulated("treeblox", 0);
    let line = archive.to_json_line();
    let copies = umpire_archive::pipeline::CHUNK_BYTES / line.len() * 3 + 7;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for _ in 0..copies {
        writeln!(file, "{line}").unwrap();
    }
    drop(file);
    let rows = score(&[Input::Path(path)], OutputFormat::JsonLines);
    assert_eq!(rows.len(), copies);
    assert!(rows.iter().all(|r| r.error.is_none()));
    assert!(rows.last().unwrap().source.ends_with(&format!(":{copies}")));
}

#[test]
fn a_changed_payload_is_an_error_row_naming_its_event_unless_the_chain_is_trusted() {
    let good = simulated("treeblox", 3);
    let mut forged = simulated("treeblox", 4);
    // The result forged: the winner changed where the game ended.
    let ended = forged.events.last_mut().unwrap();
    assert_eq!(ended.event_type, "game_ended");
    ended.payload["winner"] = match ended.payload["winner"].as_str() {
        Some("dark") => "light".into(),
        _ => "dark".into(),
    };
    // A forger who knows the scheme and hashes the chain again: the chain
    // holds, and only a replay (`audit`, import) can tell.
    let mut rechained = forged.clone();
    rechain(&mut rechained);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.jsonl");
    let lines = [&good, &forged, &rechained].map(|archive| archive.to_json_line());
    std::fs::write(&path, lines.join("\n")).unwrap();
    let inputs = [Input::Path(path)];

    assert_eq!(ScoreSettings::default().chain, ChainCheck::Verify);
    let verified = score(&inputs, OutputFormat::JsonLines);
    assert_eq!(verified.len(), 3);
    assert!(verified[0].error.is_none(), "{:?}", verified[0]);
    let error = verified[1].error.as_deref().expect("an error row");
    assert!(
        error.starts_with(&format!(
            "the hash chain does not hold (hash_mismatch) at event {}: ",
            forged.version()
        )),
        "{error}"
    );
    assert_eq!(verified[1].code.as_deref(), Some("archive_hash_mismatch"));
    assert_eq!(verified[1].game_id, forged.game_id.to_string());
    assert_eq!(verified[1].game, "treeblox");
    assert!(verified[1].source.ends_with("games.jsonl:2"));
    assert!(verified[2].error.is_none(), "{:?}", verified[2]);

    let trusted = score_with(
        &inputs,
        OutputFormat::JsonLines,
        ScoreSettings {
            chain: ChainCheck::Trust,
            ..ScoreSettings::default()
        },
    );
    assert!(
        trusted.iter().all(|row| row.error.is_none()),
        "{trusted:#?}"
    );
    assert_eq!(trusted[0], verified[0]);
    // Scored as it stands: what the forged payload says.
    assert_eq!(trusted[1].winners, trusted[2].winners);
    assert_eq!(trusted[2], verified[2]);
}

#[test]
fn what_is_not_an_archive_is_the_same_error_row_verified_or_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.jsonl");
    let good = simulated("arboretum", 1).to_json_line();
    std::fs::write(
        &path,
        format!("{good}\n{{ not json\n{{\"game_id\": \"x\", \"game\": \"treeblox\"}}\n"),
    )
    .unwrap();
    let inputs = [Input::Path(path)];
    let verified = score(&inputs, OutputFormat::JsonLines);
    let trusted = score_with(
        &inputs,
        OutputFormat::JsonLines,
        ScoreSettings {
            chain: ChainCheck::Trust,
            ..ScoreSettings::default()
        },
    );
    assert_eq!(verified, trusted);
    assert!(verified[0].error.is_none());
    assert!(verified[1].error.is_some() && verified[2].error.is_some());
}
