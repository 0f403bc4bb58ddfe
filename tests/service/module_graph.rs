//! The shape of the code that ARCHITECTURE.md's code map states, held by
//! the build: in every crate of the workspace, the modules depend on each
//! other without a cycle (`games.rs` → `live.rs` → `games.rs` made
//! `GameService` the god object every room reached into; the domain's clock,
//! type-erased game, seat tokens and rulings once named each other in a
//! ring), and no file of the service grows past the 500 lines at which the
//! house splits a room.
//!
//! A module is a file directly under a crate's `src`, or a folder there
//! with its files; it depends on the modules its code names as
//! `crate::<module>` or inside `crate::{…}` (comments aside).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Lines a file of the service may hold (ARCHITECTURE.md, under `service/`:
/// "no file over 500 lines").
const MAX_LINES_PER_FILE: usize = 500;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn service_sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `src` folder of every member the workspace's `Cargo.toml` lists.
fn every_crates_sources() -> Vec<PathBuf> {
    let manifest =
        std::fs::read_to_string(workspace().join("Cargo.toml")).expect("the workspace manifest");
    let members = manifest
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("a members list");
    let sources: Vec<PathBuf> = members
        .split(',')
        .map(|member| member.trim().trim_matches('"'))
        .filter(|member| !member.is_empty())
        .map(|member| workspace().join(member).join("src"))
        .collect();
    assert!(sources.len() >= 10, "every member is found: {sources:?}");
    sources
}

/// Every `.rs` file under `folder`, at any depth.
fn rust_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).expect("a readable source folder") {
        let path = entry.expect("a readable entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    files
}

/// The modules of the crate whose sources are `sources` that a line of
/// code names: `crate::x`, and each `x` of `crate::{x, y::z}`.
fn named_modules(code: &str) -> Vec<String> {
    let word = |text: &str| -> String {
        text.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut named = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let group = group.split('}').next().unwrap_or_default();
                named.extend(group.split(',').map(word));
            }
            None => named.push(word(rest)),
        }
    }
    // `self` names the crate root; a capital is a type the root re-exports.
    named.retain(|name| name != "self" && name.starts_with(|c: char| c.is_ascii_lowercase()));
    named
}

/// The modules each module of the crate at `sources` names, by module.
fn module_dependencies(sources: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(sources) {
        let relative = file.strip_prefix(sources).expect("under src");
        let first = relative.components().next().expect("a file name");
        let module = Path::new(first.as_os_str())
            .file_stem()
            .and_then(|stem| stem.to_str())
            .expect("a UTF-8 file name")
            .to_string();
        if module == "lib" || module == "main" {
            // The crate root declares and re-exports every module.
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        let named = graph.entry(module.clone()).or_default();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or_default();
            named.extend(
                named_modules(code)
                    .into_iter()
                    .filter(|name| *name != module),
            );
        }
    }
    graph
}

/// A cycle of modules, each naming the next and the last the first, if
/// there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        finished: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|on_path| on_path == module) {
            let mut cycle = path[start..].to_vec();
            cycle.push(module.to_string());
            return Some(cycle);
        }
        if finished.contains(module) {
            return None;
        }
        path.push(module.to_string());
        for next in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, finished) {
                return Some(cycle);
            }
        }
        path.pop();
        finished.insert(module.to_string());
        None
    }
    let mut finished = BTreeSet::new();
    graph
        .keys()
        .find_map(|module| visit(module, graph, &mut Vec::new(), &mut finished))
}

#[test]
fn the_service_modules_depend_on_each_other_without_a_cycle() {
    let graph = module_dependencies(&service_sources());
    // The scan sees what the code names: the service uses the fold cache
    // and the live streams, and the streams read through the fold cache.
    assert!(graph["games"].contains("folds") && graph["games"].contains("live"));
    assert!(graph["live"].contains("folds"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "service/src modules depend on each other in a cycle: {}",
            cycle.join(" → ")
        );
    }
}

#[test]
fn the_modules_of_every_crate_depend_on_each_other_without_a_cycle() {
    let mut cycles = Vec::new();
    for sources in every_crates_sources() {
        if let Some(cycle) = find_cycle(&module_dependencies(&sources)) {
            let crate_folder = sources.parent().expect("a crate folder");
            let crate_folder = crate_folder
                .strip_prefix(workspace())
                .unwrap_or(crate_folder);
            cycles.push(format!("{}: {}", crate_folder.display(), cycle.join(" → ")));
        }
    }
    assert!(
        cycles.is_empty(),
        "modules that depend on each other in a cycle:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn grouped_imports_name_each_module_they_hold() {
    assert_eq!(
        named_modules("use crate::{clock, rulings::RULING_EVENT, Actor};"),
        ["clock", "rulings"]
    );
    assert_eq!(
        named_modules("let x = crate::erased::event_type(e); crate::seat::Seat"),
        ["erased", "seat"]
    );
    // The domain's graph, seen through its grouped imports: the clock
    // decides the seats' tokens and the rulings with the game.
    let domain = module_dependencies(&workspace().join("domain/src"));
    assert!(domain["clock"].contains("seat_tokens") && domain["clock"].contains("rulings"));
}

#[test]
fn a_cycle_is_found_and_named_in_order() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("games", vec!["live", "folds"]),
        ("live", vec!["folds", "reads"]),
        ("reads", vec!["games"]),
        ("folds", vec![]),
    ]
    .into_iter()
    .map(|(module, named)| {
        (
            module.to_string(),
            named.into_iter().map(str::to_string).collect(),
        )
    })
    .collect();
    assert_eq!(
        find_cycle(&graph),
        Some(vec![
            "games".to_string(),
            "live".to_string(),
            "reads".to_string(),
            "games".to_string()
        ])
    );
}

#[test]
fn no_file_of_the_service_holds_more_than_500_lines() {
    let sources = service_sources();
    let too_long: Vec<String> = rust_files(&sources)
        .into_iter()
        .filter_map(|file| {
            let lines = std::fs::read_to_string(&file).ok()?.lines().count();
            (lines > MAX_LINES_PER_FILE).then(|| {
                let relative = file.strip_prefix(&sources).unwrap_or(&file);
                format!("{} ({lines} lines)", relative.display())
            })
        })
        .collect();
    assert!(
        too_long.is_empty(),
        "split by job (ARCHITECTURE.md: no file over 500 lines): {}",
        too_long.join(", ")
    );
}
