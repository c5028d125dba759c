//! `mk`, without Rust's runtime set-up: see [`math_forge::cli::mk::main_without_runtime`].
#![no_main]

#[no_mangle]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    math_forge::cli::mk::main_without_runtime()
}
