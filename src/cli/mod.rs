//! Command-line front ends: argument parsing (clap) and rendering. No computation lives here.

pub mod mf;
pub mod mk;
pub mod render;
