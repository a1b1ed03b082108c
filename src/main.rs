fn main() -> std::process::ExitCode {
    othello_census::cli::main()
}
