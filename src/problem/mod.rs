//! Problem identity: which problem a file, a theorem, an attempt belongs to, and how problem
//! ids are spelled and looked up.
//!
//! One place decides it. [`scheme`] is the one table of naming schemes (catalogue numbers,
//! contests, benchmark ids) that turns every spelling into one canonical id; [`evidence`]
//! weighs what a file offers (tracking.db, its own words, its name and folders, the users'
//! sketch naming) strongest first; [`layout`] tells package modules and tests, which state no
//! problem of their own; [`campaign`] finds the campaign targets the users' sketches name in
//! words. The knowledge base stores each source's problem with the evidence that decided it,
//! and the spellings met as aliases (`kb::Kb::resolve_problem`).

pub mod campaign;
pub mod evidence;
pub mod layout;
pub mod lemmas;
pub mod naming;
pub mod scheme;
pub mod signature;

pub use evidence::{
    identify, named_after_problem, Context, Evidence, FileView, Identity, NamedAfter,
};
pub use scheme::canonical;
