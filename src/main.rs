fn main() {
    std::process::exit(kb::cli::run());
}
