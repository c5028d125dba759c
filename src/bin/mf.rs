fn main() -> std::process::ExitCode {
    math_forge::cli::mf::main()
}
