//! Files hookc writes: tables, formatted and imported sources. Every writer
//! replaces its target atomically (a reader sees the old file or the new
//! one, never a truncated one), never writes through a symlink, keeps a
//! replaced file's permissions, and never writes a table over the rules it
//! was compiled from.

#![expect(clippy::unwrap_used, reason = "tests fail loudly on bad fixtures")]

use crate::common;
use common::{hookc_in, Run};

use hookc::Table;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("outputs")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const RULE: &str = "hook stop on tool.pre_execute at builtin::* {\n    abort \"stop\"\n}\n";

#[track_caller]
fn assert_code(run: &Run, code: i32) {
    assert_eq!(
        run.code,
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        run.stdout,
        run.stderr
    );
}

/// Names in `dir` that look like temporary files left behind.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

/// Enough rules that writing the table takes a while: a reader racing a
/// non-atomic writer would see it short.
fn many_rules(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "hook r{i} on tool.pre_execute at builtin::* {{\n    when payload.args matches /tok{i}[a-z]+[0-9]{{2,}}/ or payload.args contains \"literal-{i}\"\n    abort \"rule {i}\"\n}}\n"
            )
        })
        .collect()
}

#[test]
fn a_reader_never_sees_a_short_table_while_compile_rewrites_it() {
    let dir = tmp_dir("race");
    std::fs::write(dir.join("rules.hooks"), many_rules(100)).unwrap();
    let run = hookc_in(&dir, &["compile", "rules.hooks", "-o", "rules.tbl"], None);
    assert_code(&run, 0);
    let table = dir.join("rules.tbl");
    let size = std::fs::metadata(&table).unwrap().len();
    assert!(size > 10_000, "the table is big enough to race: {size}");

    let stop = Arc::new(AtomicBool::new(false));
    let loads = Arc::new(AtomicUsize::new(0));
    let reader = {
        let (stop, loads, table) = (stop.clone(), loads.clone(), table.clone());
        std::thread::spawn(move || -> Vec<String> {
            let mut failures = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let outcome = std::fs::read(&table)
                    .map_err(|e| e.to_string())
                    .and_then(|bytes| {
                        Table::from_owned_bytes(bytes)
                            .map(|_| ())
                            .map_err(|e| e.to_string())
                    });
                loads.fetch_add(1, Ordering::Relaxed);
                if let Err(e) = outcome {
                    failures.push(e);
                }
            }
            failures
        })
    };
    for _ in 0..20 {
        let run = hookc_in(&dir, &["compile", "rules.hooks", "-o", "rules.tbl"], None);
        assert_code(&run, 0);
    }
    stop.store(true, Ordering::Relaxed);
    let failures = reader.join().unwrap();
    assert!(loads.load(Ordering::Relaxed) > 20, "the reader ran");
    assert!(
        failures.is_empty(),
        "{} of {} loads failed, e.g. {:?}",
        failures.len(),
        loads.load(Ordering::Relaxed),
        failures.first()
    );
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
}

#[test]
fn compile_never_writes_over_a_rule_source() {
    let dir = tmp_dir("over-source");
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    let source = dir.join("rules/a.hooks");
    std::fs::write(&source, RULE).unwrap();
    // An import that does not end in `.hooks`.
    std::fs::write(dir.join("shared.inc"), "list xs = [\"x\"]\n").unwrap();
    let importing = "import \"../shared.inc\"\nhook b on tool.pre_execute at builtin::* {\n    when payload.args in xs\n    abort \"b\"\n}\n";
    std::fs::write(dir.join("rules/b.hooks"), importing).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("rules/a.hooks", dir.join("link.tbl")).unwrap();

    let mut outputs = vec![
        "rules/a.hooks",   // an input, by its name
        "./rules/a.hooks", // …through `./`
        "rules/../rules/a.hooks",
        "rules/new.hooks", // any `.hooks` name
        "shared.inc",      // a file only an import reached
    ];
    if cfg!(unix) {
        outputs.push("link.tbl"); // a link to an input
    }
    for output in outputs {
        let run = hookc_in(&dir, &["compile", "rules", "-o", output], None);
        assert_code(&run, 2);
        assert!(
            run.stderr
                .contains("error: refusing to write a compiled table"),
            "{output}: {}",
            run.stderr
        );
        assert!(run
            .stderr
            .contains("help: write the table to a file of its own"));
        assert_eq!(std::fs::read_to_string(&source).unwrap(), RULE, "{output}");
        assert_eq!(
            std::fs::read_to_string(dir.join("shared.inc")).unwrap(),
            "list xs = [\"x\"]\n"
        );
        assert!(!dir.join("rules/new.hooks").exists());
    }
    // A named file given twice, one of them as the output, is refused too.
    let run = hookc_in(
        &dir,
        &["compile", "rules/a.hooks", "-o", "rules/a.hooks"],
        None,
    );
    assert_code(&run, 2);
    assert!(
        run.stderr.contains("it is one of the rule sources"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&source).unwrap(), RULE);

    let run = hookc_in(&dir, &["compile", "rules", "-o", "rules.tbl"], None);
    assert_code(&run, 0);
}

#[cfg(unix)]
#[test]
fn compile_replaces_a_symlink_and_keeps_a_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp_dir("symlink");
    std::fs::write(dir.join("a.hooks"), RULE).unwrap();
    std::fs::write(dir.join("elsewhere"), "not a table").unwrap();
    std::os::unix::fs::symlink("elsewhere", dir.join("rules.tbl")).unwrap();
    let run = hookc_in(&dir, &["compile", "a.hooks", "-o", "rules.tbl"], None);
    assert_code(&run, 0);
    assert_eq!(
        std::fs::read_to_string(dir.join("elsewhere")).unwrap(),
        "not a table",
        "the link's target is untouched"
    );
    let meta = std::fs::symlink_metadata(dir.join("rules.tbl")).unwrap();
    assert!(meta.is_file(), "the link was replaced by the table");
    Table::from_owned_bytes(std::fs::read(dir.join("rules.tbl")).unwrap()).unwrap();

    std::fs::set_permissions(
        dir.join("rules.tbl"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    let run = hookc_in(&dir, &["compile", "a.hooks", "-o", "rules.tbl"], None);
    assert_code(&run, 0);
    let mode = std::fs::metadata(dir.join("rules.tbl"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640);
    assert!(leftovers(&dir).is_empty());
}

#[cfg(unix)]
#[test]
fn fmt_rewrites_in_place_but_not_through_a_symlink() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp_dir("fmt");
    let messy = "hook   a on tool.pre_execute {abort \"a\"}\n";
    std::fs::write(dir.join("a.hooks"), messy).unwrap();
    std::fs::set_permissions(dir.join("a.hooks"), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::create_dir_all(dir.join("shared")).unwrap();
    std::fs::write(dir.join("shared/b.hooks"), messy.replace(" a ", " b ")).unwrap();
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    std::os::unix::fs::symlink("../shared/b.hooks", dir.join("rules/b.hooks")).unwrap();

    let run = hookc_in(&dir, &["fmt", "a.hooks", "rules"], None);
    assert_code(&run, 2);
    let formatted = std::fs::read_to_string(dir.join("a.hooks")).unwrap();
    assert_ne!(formatted, messy);
    assert!(
        formatted.starts_with("hook a on tool.pre_execute {\n"),
        "{formatted}"
    );
    let mode = std::fs::metadata(dir.join("a.hooks"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "the file keeps its mode");
    assert!(
        run.stderr
            .contains("error: `rules/b.hooks` is a symbolic link: not rewritten"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("help: format the file it points to"),
        "{}",
        run.stderr
    );
    assert!(std::fs::symlink_metadata(dir.join("rules/b.hooks"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_to_string(dir.join("shared/b.hooks")).unwrap(),
        messy.replace(" a ", " b ")
    );
    assert!(leftovers(&dir).is_empty());
}

#[test]
fn import_never_writes_over_its_input() {
    let dir = tmp_dir("import");
    let settings = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#;
    std::fs::write(dir.join("settings.json"), settings).unwrap();
    let run = hookc_in(
        &dir,
        &[
            "import",
            "claude-settings",
            "settings.json",
            "-o",
            "./settings.json",
        ],
        None,
    );
    assert_code(&run, 2);
    assert!(
        run.stderr.contains("it is the input `settings.json`"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("settings.json")).unwrap(),
        settings
    );

    let run = hookc_in(
        &dir,
        &[
            "import",
            "claude-settings",
            "settings.json",
            "-o",
            "claude.hooks",
        ],
        None,
    );
    assert_code(&run, 0);
    assert!(std::fs::read_to_string(dir.join("claude.hooks"))
        .unwrap()
        .contains("hook "));
    assert!(leftovers(&dir).is_empty());
}
