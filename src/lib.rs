//! math-forge: reads Lean 4 with a real parser and turns proof attempts into searchable knowledge.
//!
//! Data flows one way: bytes → syntax tree ([`lean`]) → outline → findings ([`extract`]) →
//! knowledge.db ([`kb`]) → queries. The [`cli`] layer renders and never computes.

pub mod cli;
pub mod cursor;
pub mod extract;
pub mod hook;
pub mod kb;
pub mod lean;
pub mod lint;
pub mod tracking;
pub mod verify;
