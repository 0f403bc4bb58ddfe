//! The shape of `service/src` that ARCHITECTURE.md's code map states, held
//! by the build:
//! its modules depend on each other without a cycle (`games.rs` → `live.rs`
//! → `games.rs` made `GameService` the god object every room reached into),
//! and no file grows past the 500 lines at which the house splits a room.
//!
//! A module is a file directly under `service/src`, or a folder there with
//! its files; it depends on the modules its code names as `crate::<module>`
//! (comments aside).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Lines a file of the service may hold (ARCHITECTURE.md, under `service/`:
/// "no file over 500 lines").
const MAX_LINES_PER_FILE: usize = 500;

fn service_sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `folder`, at any depth.
fn rust_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).expect("service/src is readable") {
        let path = entry.expect("a readable entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    files
}

/// The modules each module of `service/src` names, by module.
fn module_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let sources = service_sources();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&sources) {
        let relative = file.strip_prefix(&sources).expect("under service/src");
        let first = relative.components().next().expect("a file name");
        let module = Path::new(first.as_os_str())
            .file_stem()
            .and_then(|stem| stem.to_str())
            .expect("a UTF-8 file name")
            .to_string();
        if module == "lib" {
            // The crate root declares and re-exports every module.
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        let named = graph.entry(module.clone()).or_default();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or_default();
            for (at, _) in code.match_indices("crate::") {
                let rest = &code[at + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != module {
                    named.insert(name);
                }
            }
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
    let graph = module_dependencies();
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
