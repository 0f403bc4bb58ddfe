//! What a match says it holds in memory (`DynMatch::bytes`, what the
//! service's fold cache charges its memory budget for each state it keeps)
//! against what copying it really allocates, counted by this binary's
//! allocator, for every game at every version of several games.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use umpire_domain::DynMatch;

use crate::decide_fuzz::{played, GAMES};

/// The system allocator, counting the bytes each thread asks of it (the
/// tests of this binary run on threads of their own).
struct Counting;

thread_local! {
    static ASKED: Cell<usize> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    // `try_with`: a thread's allocations while it is torn down go uncounted.
    let _ = ASKED.try_with(|asked| asked.set(asked.get() + bytes));
}

// SAFETY: every call is passed to `System` as it came. Unsafe only because
// an allocator's trait is: a crate counting allocations counts them for the
// whole process, and this binary's tests run on several threads at once.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size.saturating_sub(layout.size()));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The bytes copying `state` asks of the allocator, and the copy.
fn copied(state: &dyn DynMatch) -> (usize, Box<dyn DynMatch>) {
    let before = ASKED.with(Cell::get);
    let copy = state.clone_box();
    (ASKED.with(Cell::get) - before, copy)
}

/// Given a match at each version of random games of every game, when it is
/// copied (as a fold keeps a state every so many events), then what the copy
/// says it holds is within 35 % of what copying it allocated at every
/// version, and within 5 % over all versions: only a B-tree's shape is
/// estimated (`umpire_domain::memory`), and only two games keep one.
#[test]
fn a_match_says_what_copying_it_allocates() {
    for game in GAMES {
        let (mut said, mut allocated) = (0usize, 0usize);
        for seed in 0..3 {
            let (_, events) = played(game, seed, 2_000);
            let registry = umpire_games::registry();
            let rules = registry.get(game).unwrap();
            let options = rules.validate_options(&serde_json::Value::Null).unwrap();
            let mut state = rules.new_match(&options).unwrap();
            for (index, event) in events.iter().enumerate() {
                state.apply_json(event).unwrap();
                let (bytes, copy) = copied(state.as_ref());
                let says = copy.bytes();
                assert!(
                    says.abs_diff(bytes) * 100 <= bytes * 35,
                    "{game} seed {seed} at version {}: says {says} B, copying allocated {bytes} B",
                    index + 1
                );
                said += says;
                allocated += bytes;
            }
        }
        assert!(
            said.abs_diff(allocated) * 20 <= allocated,
            "{game}: {said} B said over every version, {allocated} B allocated"
        );
    }
}
