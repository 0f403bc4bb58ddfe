//! The `umpire` binary: see `umpire --help`.

/// The service allocates many small, short-lived JSON values per request
/// from several threads; mimalloc does that with far less contention and
/// fragmentation than the system allocator (see docs/load.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc v3's `mi_option_purge_delay` (its `mimalloc.h`; libmimalloc-sys
/// names only some options).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long mimalloc keeps freed pages before returning them to the kernel.
/// Its default in v3 is a second, and a thread that goes quiet keeps them
/// longer: when the memory budget makes the fold cache give way to a burst
/// of archive bodies, the folds' pages stayed resident while the bodies
/// took new ones, and the process went 90 MiB past its budget
/// (`scripts/abuse/soak.py`). v2's default, 10 ms, keeps pages that are
/// freed and taken again at once (the action path's) without purging them
/// in between.
const PURGE_DELAY_MS: std::ffi::c_long = 10;

fn main() -> std::process::ExitCode {
    // An operator's MIMALLOC_PURGE_DELAY (read by mimalloc itself) wins.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's options, which it reads at each
        // purge; no allocation is affected.
        #[allow(unsafe_code, reason = "mimalloc's options are set through its C API")]
        unsafe {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS)
        };
    }
    umpire_api::cli::main()
}
