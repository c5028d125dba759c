//! Command-line front ends: argument parsing (clap) and rendering. No computation lives here.

/// `eprintln!` that never panics: when stderr is closed nobody is left to read the line, and
/// the command must still end with its documented status.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod excerpt;
pub mod generate;
pub mod mf;
pub mod mk;
pub mod output;
pub mod render;
pub mod report;
