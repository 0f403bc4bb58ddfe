//! The `umpire` binary: see `umpire --help`.

fn main() -> std::process::ExitCode {
    umpire_api::cli::main()
}
