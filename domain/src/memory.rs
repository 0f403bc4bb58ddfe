//! What a game's state holds in memory, where `get_size2`'s count of
//! entries is not what the standard library allocates.

use std::collections::BTreeMap;

use get_size2::GetSize;

/// The standard library's B-tree keeps up to this many entries a node.
const ENTRIES_A_NODE: usize = 11;

/// The bytes a `BTreeMap` allocates: its nodes, each room for eleven
/// entries whatever it holds, and what its keys and values hold.
/// `get_size2` counts the entries alone, a half to a third of it.
///
/// The shape of a map is not public, so it is estimated: one node for up
/// to a node's entries; past that a node per nine entries (splits leave
/// nodes two thirds full or so) and a branch node, with its twelve links,
/// per nine nodes below it. Held to what copying the games' maps allocates
/// by the registry's tests (`tests/state_bytes.rs`).
pub fn btree_map_bytes<K: GetSize, V: GetSize>(map: &BTreeMap<K, V>) -> usize {
    if map.is_empty() {
        return 0;
    }
    // Its parent's link, its index there and its length, then its entries.
    let leaf = 16 + ENTRIES_A_NODE * (std::mem::size_of::<K>() + std::mem::size_of::<V>());
    let branch = leaf + (ENTRIES_A_NODE + 1) * std::mem::size_of::<usize>();
    let leaves = if map.len() <= ENTRIES_A_NODE {
        1
    } else {
        map.len().div_ceil(9)
    };
    let branches = if leaves > 1 { leaves.div_ceil(9) } else { 0 };
    let held: usize = map
        .iter()
        .map(|(key, value)| key.get_heap_size() + value.get_heap_size())
        .sum();
    leaves * leaf + branches * branch + held
}
