//! math-forge: reads Lean 4 with a real parser and turns proof attempts into searchable knowledge.
//!
//! Data flows one way: bytes → syntax tree ([`lean`]) → outline → findings ([`extract`]) →
//! knowledge.db ([`kb`]) → queries. The [`cli`] layer renders and never computes.

pub mod cli;
pub mod cursor;
pub mod extract;
pub mod files;
pub mod hook;
pub mod kb;
pub mod lean;
pub mod lint;
pub mod mcp;
pub mod problem;
pub mod sql;
pub mod tracking;
pub mod verify;

/// mimalloc for every allocation of the process. With its `override` feature it also replaces
/// `malloc`/`free` for the C code linked in (tree-sitter, SQLite), which is where most
/// allocations happen: tree-sitter makes a node per token.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Asks the kernel for no transparent huge pages in this process; `mf` calls it first.
///
/// mimalloc reserves large aligned regions, and where the system backs anonymous memory with
/// huge pages "always", the first touch of each 2 MiB of them is a 2 MiB page the kernel must
/// zero: a post-tool-use hook that touches 4 MiB had 16 MiB zeroed, about 1.5 ms of its CPU
/// time. With ordinary pages only what is touched is zeroed; `mf extract` on the whole corpus
/// costs the same either way. `mk` does not call it: a search of a large knowledge base was
/// about 9% faster with huge pages (all measured alternately on one machine).
pub fn without_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// Tells SQLite not to allocate each connection's page cache 20 pages at a time; `mk` calls it
/// first, before SQLite is used.
///
/// That first block (some 90 KiB) is too large for mimalloc's small and medium pages, so it
/// gets a "large" page of its own, aligned to 4 MiB: with huge pages (see [`small_arenas`])
/// a search had four 2 MiB pages zeroed where the memory it uses fits in two. Pages are then
/// allocated one at a time, as they already were after the first 20. The documented way:
/// `SQLITE_CONFIG_PAGECACHE` with no buffer and no initial lines.
pub fn sqlite_page_cache_unbulked() {
    // SAFETY: sqlite3_config before sqlite3_initialize, from the only thread; the arguments
    // are the documented (pointer, size, count) triple. After initialization it only returns
    // SQLITE_MISUSE and changes nothing, which is harmless here.
    unsafe {
        rusqlite::ffi::sqlite3_config(
            rusqlite::ffi::SQLITE_CONFIG_PAGECACHE,
            std::ptr::null_mut::<std::ffi::c_void>(),
            0 as std::ffi::c_int,
            0 as std::ffi::c_int,
        );
    }
}

/// Makes mimalloc reserve its address space 64 MiB at a time instead of 1 GiB; `mk` calls it
/// first, before its first allocation.
///
/// An arena's bookkeeping grows with its size, and for 1 GiB it fills the first 2 MiB of the
/// arena: with huge pages (which a short `mk` process is faster with, see
/// [`without_huge_pages`]) that is a 2 MiB page zeroed before the first object is placed,
/// and the objects themselves begin in the next one. At 64 MiB both share one page. A
/// process that needs more gets more arenas, each larger than the last.
pub fn small_arenas() {
    extern "C" {
        fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    /// `mi_option_arena_reserve` (mimalloc 3's `mi_option_t`), in KiB.
    const ARENA_RESERVE: std::ffi::c_int = 23;
    // SAFETY: plain getters and setters of mimalloc's options. The value is checked against
    // the documented default first, so that another option is never changed should the
    // numbering move in a later mimalloc.
    unsafe {
        if mi_option_get(ARENA_RESERVE) == 1024 * 1024 {
            mi_option_set(ARENA_RESERVE, 64 * 1024);
        }
    }
}
