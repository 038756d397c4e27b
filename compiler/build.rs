fn main() {
    // Generates the parser from src/frontend/grammar.lalrpop into OUT_DIR.
    lalrpop::process_root().expect("lalrpop grammar failed to build");
}
