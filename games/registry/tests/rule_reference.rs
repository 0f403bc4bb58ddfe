//! The project's rule reference (`docs/rules/`) documents every rule a
//! refusal can cite and every code it can carry: a clone of the repository
//! can settle any refusal without the publisher's books. That each of these
//! sections is served with the anchor its refusals' `rule_url` points to
//! is held through the real server by `tests/http/rules.rs`.

use std::path::PathBuf;

/// The rule reference page of a game.
fn page(game: &str) -> (PathBuf, String) {
    let file = format!("{}.md", game.replace('_', "-"));
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/rules")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (path, text)
}

/// The sections a page has: `§3.2` for a heading line `### §3.2 Bidding`.
fn sections(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| line.starts_with('#'))
        .filter_map(|line| line.trim_start_matches('#').split_whitespace().next())
        .filter(|word| word.starts_with('§'))
        .collect()
}

fn refusals() -> Vec<(&'static str, &'static [umpire_domain::ViolationKind])> {
    umpire_games::refusals_by_page()
}

#[test]
fn every_rule_a_refusal_can_cite_is_a_section_of_its_games_page() {
    for (id, kinds) in refusals() {
        let (path, text) = page(id);
        let headings = sections(&text);
        assert!(
            headings.contains(&"§R"),
            "{}: no §R rulings",
            path.display()
        );
        for kind in kinds {
            let section = kind
                .rule
                .strip_prefix(id)
                .map(str::trim)
                .unwrap_or_else(|| panic!("{} cites another game: {}", kind.code, kind.rule));
            assert!(
                headings.contains(&section),
                "{} cites {}, which {} has no heading for (it has {headings:?})",
                kind.code,
                kind.rule,
                path.display()
            );
        }
    }
}

#[test]
fn every_code_is_listed_under_each_section_that_decides_it() {
    for (id, kinds) in refusals() {
        let (path, text) = page(id);
        for kind in kinds {
            let section = kind.rule.trim_start_matches(id).trim();
            // The part of the page from the section's heading to the next
            // heading of the same or a higher level.
            let mut lines = text.lines().skip_while(|line| {
                !(line.starts_with('#')
                    && line.trim_start_matches('#').split_whitespace().next() == Some(section))
            });
            let heading = lines.next().expect("the section exists (checked above)");
            let level = heading.chars().take_while(|c| *c == '#').count();
            let body: Vec<&str> = lines
                .take_while(|line| {
                    !(line.starts_with('#')
                        && line.chars().take_while(|c| *c == '#').count() <= level)
                })
                .collect();
            let listed = format!("`{}`", kind.code);
            assert!(
                body.iter().any(|line| line.contains(&listed)),
                "{}: section {section} does not list {listed}",
                path.display()
            );
        }
    }
}

#[test]
fn a_missing_section_would_be_noticed() {
    let text = "# Game\n## §1 One\n### §1.2 Two\n## §R Rulings\n";
    assert_eq!(sections(text), ["§1", "§1.2", "§R"]);
    assert!(!sections(text).contains(&"§2"));
}
