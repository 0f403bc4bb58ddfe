//! Rebuilds the binary when a file under `viewer/` is added, changed or
//! removed: `include_dir!` embeds the directory (`routes/viewer.rs`), and
//! without this Cargo would notice a changed file but not a new one.

fn main() {
    // A directory here is scanned whole, every file's time compared.
    println!("cargo:rerun-if-changed=viewer");
}
