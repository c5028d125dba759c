//! `mk`. On linux-gnu it starts without Rust's runtime set-up (see
//! [`math_forge::cli::mk::main_without_runtime`]): std still reads the arguments there, from
//! glibc's call of its init_array. Elsewhere (musl, macOS, Windows) std's `main` is kept, as
//! the arguments may come only through it.
#![cfg_attr(all(target_os = "linux", target_env = "gnu"), no_main)]

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[no_mangle]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    math_forge::cli::mk::main_without_runtime()
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn main() -> std::process::ExitCode {
    math_forge::cli::mk::main()
}
