//! The `jury` binary: everything lives in the library; this only starts it.

fn main() -> std::process::ExitCode {
    jury::cli::main()
}
