fn main() -> std::process::ExitCode {
    math_forge::cli::mk::main()
}
