//! Rebuilds the binary when a file under `viewer/` or `../docs/rules/` is
//! added, changed or removed: `include_dir!` embeds these directories
//! (`routes/viewer.rs`, `routes/rules.rs`), and without this Cargo would
//! notice a changed file but not a new one.

fn main() {
    // A directory here is scanned whole, every file's time compared.
    println!("cargo:rerun-if-changed=viewer");
    println!("cargo:rerun-if-changed=../docs/rules");
}
