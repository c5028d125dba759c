//! Links `mf` and `mk` as position-dependent executables on Linux.
//!
//! Claude Code starts `mf` on every tool call, and a position-independent `mf` began each run
//! by patching some 20,000 pointers in its read-only data (the parser's tables, vtables), a
//! copy-on-write fault for each of ~100 pages: about a twentieth of a post-tool-use hook's
//! CPU time. Linked at a fixed address, the linker resolves them once. The code is still
//! compiled position-independent; only the executable's own load address is no longer
//! randomized (shared libraries, stack and heap still are).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        // `mk` too: hooks and agents run `mk search` per question, where start-up is half the time.
        for bin in ["mf", "mk"] {
            println!("cargo:rustc-link-arg-bin={bin}=-no-pie");
        }
    }
}
