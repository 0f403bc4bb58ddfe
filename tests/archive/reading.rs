//! Where archives are found in what was read (`umpire_archive::reading`),
//! as data: each text, what is handed over and where it stood.

use std::sync::Arc;

use umpire_archive::inputs::Chunk;
use umpire_archive::pipeline::refuse_if_not_archives;
use umpire_archive::reading::{each_archive_text, Place, ReadStop};

/// Every archive text found in `text` with its place, or why not.
fn found(text: &[u8]) -> Result<Vec<(String, Place)>, String> {
    let mut archives = Vec::new();
    each_archive_text(text, |archive, place| {
        archives.push((archive.to_string(), place));
        Ok::<_, std::convert::Infallible>(())
    })
    .map_err(|stop| match stop {
        ReadStop::NotUtf8 => "not UTF-8".to_string(),
        ReadStop::Malformed(error) => format!("malformed: {error}"),
        ReadStop::Stopped(never) => match never {},
    })?;
    Ok(archives)
}

fn line(text: &str, line: u64) -> (String, Place) {
    (text.to_string(), Place::Line(line))
}

fn element(text: &str, index: usize) -> (String, Place) {
    (text.to_string(), Place::Element(index))
}

#[test]
fn one_archive_an_array_and_json_lines_are_each_found_with_their_places() {
    let cases: Vec<(&str, Vec<(String, Place)>)> = vec![
        ("{\"game\": \"a\"}", vec![line("{\"game\": \"a\"}", 1)]),
        (
            "{\n  \"game\": \"a\",\n  \"events\": []\n}\n",
            vec![line("{\n  \"game\": \"a\",\n  \"events\": []\n}", 1)],
        ),
        (
            "  [{\"a\": 1}, {\"b\": [2]}]",
            vec![element("{\"a\": 1}", 0), element("{\"b\": [2]}", 1)],
        ),
        ("[]", vec![]),
        (
            "{\"a\": 1}\n\n{\"b\": 2}\n",
            vec![line("{\"a\": 1}", 1), line("{\"b\": 2}", 3)],
        ),
        // Lines that are not archives are still handed over, to be refused
        // one by one by whoever reads them.
        ("x\n{\"a\": 1}\n", vec![line("x", 1), line("{\"a\": 1}", 2)]),
        ("", vec![]),
    ];
    for (text, expected) in cases {
        assert_eq!(found(text.as_bytes()), Ok(expected), "{text:?}");
    }
}

#[test]
fn a_malformed_array_or_text_that_is_not_utf8_is_refused_whole() {
    assert!(found(b"[{\"a\": 1},")
        .unwrap_err()
        .starts_with("malformed: "));
    assert!(found(b"[1, 2] 3").unwrap_err().starts_with("malformed: "));
    assert_eq!(found(b"{\"a\": \"\xff\"}"), Err("not UTF-8".to_string()));
}

#[test]
fn places_are_labelled_as_answers_name_their_source() {
    assert_eq!(Place::Line(3).label("body"), "body:3");
    assert_eq!(Place::Element(0).label("body"), "body[0]");
    assert_eq!(Place::Line(12).label("games.jsonl"), "games.jsonl:12");
}

fn first_chunk(text: &str, first_line: u64) -> Chunk {
    Chunk {
        source: Arc::from("notes.md"),
        first_line,
        bytes: text.as_bytes().to_vec(),
        whole_document: false,
    }
}

#[test]
fn an_input_whose_first_three_lines_are_not_json_objects_is_not_archives() {
    let refused = refuse_if_not_archives(&first_chunk("# Title\n\ntext\nmore\nand more\n", 1))
        .unwrap_err()
        .to_string();
    assert!(
        refused.starts_with("notes.md: not archives: lines 1, 3, 4 are not JSON objects"),
        "{refused}"
    );
    for (text, first_line) in [
        // An archive (any object) among the first three lines.
        ("# notes\n{\"game_id\": 1}\nmore\n", 1),
        ("a\nb\n{}\n", 1),
        // Too short to tell: each line is its own error row.
        ("a\nb\n", 1),
        // Not the start of the input.
        ("a\nb\nc\n", 4),
    ] {
        assert!(
            refuse_if_not_archives(&first_chunk(text, first_line)).is_ok(),
            "{text:?} from line {first_line}"
        );
    }
}
