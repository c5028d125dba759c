fn main() -> std::process::ExitCode {
    math_forge::without_huge_pages();
    math_forge::cli::mf::main()
}
