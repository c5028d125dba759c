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
