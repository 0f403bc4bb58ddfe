//! The `umpire` binary: see `umpire --help`.

/// The service allocates many small, short-lived JSON values per request
/// from several threads; mimalloc does that with far less contention and
/// fragmentation than the system allocator (see docs/load.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    umpire_api::cli::main()
}
