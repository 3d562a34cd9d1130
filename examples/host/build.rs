//! Compiles the shipped rule packs into `$OUT_DIR/hooks.tbl`; `src/main.rs`
//! embeds the table. A rule with an error fails the build with rustc-style
//! diagnostics, and editing a rule file reruns this script.

fn main() -> Result<(), hookc::embed::BuildError> {
    hookc::embed::compile_dir("../../rules")?;
    Ok(())
}
