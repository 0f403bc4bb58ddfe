//! The paper around the code, held to the code: the map and the README
//! short enough to read, every link in the Markdown leading somewhere,
//! every path and command the docs name existing, and no code comment
//! dated by an issue number.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// Directories that are not the project's own text.
const NOT_OURS: [&str; 7] = [
    "target",
    "vendor",
    "node_modules",
    ".tools",
    ".git",
    "generated",
    "dist",
];

fn files(dir: &Path, extension: &str, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("");
        if path.is_dir() {
            if !NOT_OURS.contains(&name) {
                files(&path, extension, found);
            }
        } else if path.extension().and_then(|ext| ext.to_str()) == Some(extension) {
            found.push(path);
        }
    }
}

fn markdown() -> Vec<PathBuf> {
    let mut found = Vec::new();
    files(&root(), "md", &mut found);
    assert!(found.len() > 10, "the Markdown files were found");
    found
}

fn lines(file: &str) -> usize {
    fs::read_to_string(root().join(file))
        .expect("the file")
        .lines()
        .count()
}

#[test]
fn the_map_and_the_readme_are_short_enough_to_read() {
    let architecture = lines("ARCHITECTURE.md");
    let readme = lines("README.md");
    assert!(
        architecture <= 300,
        "ARCHITECTURE.md has {architecture} lines, more than 300"
    );
    assert!(readme <= 200, "README.md has {readme} lines, more than 200");
}

/// The targets of a Markdown text's inline links, `[text](target)`.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("](") {
        let after = &rest[start + 2..];
        let Some(end) = after.find(')') else { break };
        targets.push(after[..end].to_string());
        rest = &after[end..];
    }
    targets
}

#[test]
fn every_link_in_the_markdown_leads_to_a_file() {
    let mut broken = Vec::new();
    for file in markdown() {
        let text = fs::read_to_string(&file).expect("readable");
        for target in link_targets(&text) {
            let path = target.split('#').next().unwrap_or("");
            let outside = target.contains("://") || target.starts_with("mailto:");
            // `/rules/...` and such are the service's own pages.
            if outside || path.is_empty() || path.starts_with('/') || path.contains(' ') {
                continue;
            }
            let resolved = file.parent().expect("a directory").join(path);
            if !resolved.exists() {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links leading nowhere:\n{}",
        broken.join("\n")
    );
}

/// The first segments of paths in the repository that the docs name in
/// backticks (`scripts/load.sh`, `service/src/budget.rs`).
const TOP_LEVEL: [&str; 14] = [
    "api/",
    "archive/",
    "deploy/",
    "docs/",
    "domain/",
    "games/",
    "migrations/",
    "openapi/",
    "pgcluster/",
    "scripts/",
    "service/",
    "storage/",
    "tests/",
    ".ci/",
];

/// Paths named in backticks that are not files of the repository but
/// patterns or places made at run time.
fn is_pattern(path: &str) -> bool {
    path.contains(['<', '*', '{', '…', '$', ' ']) || path.contains("target/")
}

/// The repository's `.gitignore` entries anchored at its root (`/target`,
/// `/openapi/clients/python/generated`, …): what a tool writes on a
/// developer's machine and a fresh clone does not have yet.
fn ignored_by_git() -> Vec<String> {
    fs::read_to_string(root().join(".gitignore"))
        .expect("the .gitignore")
        .lines()
        .filter_map(|line| line.strip_prefix('/'))
        .map(|entry| entry.trim_end_matches('/').to_owned())
        .collect()
}

fn is_made_at_run_time(path: &str, ignored: &[String]) -> bool {
    ignored.iter().any(|entry| {
        path.strip_prefix(entry.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

#[test]
fn every_path_the_docs_name_exists() {
    let root = root();
    let ignored = ignored_by_git();
    let mut missing = Vec::new();
    // The run logs name what was there on their day.
    let current = markdown()
        .into_iter()
        .filter(|file| !file.starts_with(root.join("docs/history")));
    for file in current {
        let text = fs::read_to_string(&file).expect("readable");
        for (index, quoted) in text.split('`').enumerate() {
            if index % 2 == 0 || quoted.contains('\n') {
                continue;
            }
            let path = quoted.split(['#', ':']).next().unwrap_or("");
            let path = path.trim_end_matches(['.', ',']);
            if !TOP_LEVEL.iter().any(|top| path.starts_with(top))
                || is_pattern(path)
                || is_made_at_run_time(path, &ignored)
            {
                continue;
            }
            if !root.join(path).exists() {
                missing.push(format!("{}: `{quoted}`", file.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths named but not found:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_umpire_command_the_docs_name_exists() {
    let help = Command::new(env!("CARGO_BIN_EXE_umpire"))
        .arg("--help")
        .output()
        .expect("umpire --help runs");
    let help = String::from_utf8(help.stdout).expect("UTF-8");
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(
        commands.contains(&"serve"),
        "the commands were read: {help}"
    );
    let mut unknown = Vec::new();
    for file in markdown() {
        let text = fs::read_to_string(&file).expect("readable");
        for (index, quoted) in text.split('`').enumerate() {
            let mut words = quoted.split_whitespace();
            let (Some(first), Some(command)) = (words.next(), words.next()) else {
                continue;
            };
            let named = index % 2 == 1 && (first == "umpire" || first.ends_with("/umpire"));
            let a_command = command.chars().all(|c| c.is_ascii_lowercase() || c == '-');
            if named && a_command && !command.starts_with('-') && !commands.contains(&command) {
                unknown.push(format!("{}: `{quoted}`", file.display()));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "commands `umpire` does not have:\n{}",
        unknown.join("\n")
    );
}

/// "issue 35", "Issue 12", "issues 30 and 45": what dates a comment.
fn names_an_issue(line: &str) -> bool {
    let lower = line.to_lowercase();
    lower.match_indices("issue").any(|(at, _)| {
        let after = lower[at + 5..].trim_start_matches('s').trim_start();
        let after = after.trim_start_matches('#');
        after.starts_with(|c: char| c.is_ascii_digit())
    })
}

#[test]
fn no_code_comment_is_dated_by_an_issue() {
    let root = root();
    let mut sources = Vec::new();
    for dir in [
        "api/src",
        "archive/src",
        "domain/src",
        "games",
        "pgcluster/src",
        "service/src",
        "storage/src",
    ] {
        if root.join(dir).exists() {
            files(&root.join(dir), "rs", &mut sources);
        }
    }
    assert!(sources.len() > 50, "the sources were found");
    let mut dated = Vec::new();
    for file in sources {
        let text = fs::read_to_string(&file).expect("readable");
        for (number, line) in text.lines().enumerate() {
            let comment = line.trim_start().starts_with("//");
            if comment && names_an_issue(line) {
                dated.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        dated.is_empty(),
        "comments naming an issue:\n{}",
        dated.join("\n")
    );
}

#[test]
fn an_issue_is_told_from_a_word() {
    assert!(names_an_issue("// as issue 35 found"));
    assert!(names_an_issue("//! (Issues 30 and 45)"));
    assert!(names_an_issue("/// issue #12"));
    assert!(!names_an_issue("// the issue is the clock"));
    assert!(!names_an_issue("// issued 3 tokens"));
}
