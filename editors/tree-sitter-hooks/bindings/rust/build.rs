//! Compiles the generated parser (`src/parser.c`) into the crate.

fn main() {
    let src = std::path::Path::new("src");
    let parser = src.join("parser.c");
    let mut build = cc::Build::new();
    build.std("c11").include(src).file(&parser);
    #[cfg(target_env = "msvc")]
    build.flag("-utf-8");
    // The generated C has unused parameters and the like; they are not ours
    // to fix.
    build.warnings(false);
    build.compile("tree-sitter-hooks");
    println!("cargo:rerun-if-changed={}", parser.display());
    println!(
        "cargo:rerun-if-changed={}",
        src.join("tree_sitter").display()
    );
}
