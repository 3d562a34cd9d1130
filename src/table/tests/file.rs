//! A table read from its file ([`Table::read_file`]): as far as its
//! directory at load, each DFA section when first searched.

use super::super::*;
use super::sample;
use std::io::Write;

/// A table with a DFA section per field its regexes are on, two of them
/// at `tool.pre_execute`, one at `tool.post_execute`.
fn compiled() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        const RULES: &str = r#"
hook a on tool.pre_execute at builtin::llm { when payload.args matches /rm\s+-rf/ abort "rm {payload.args}" }
hook b on tool.pre_execute at builtin::* { when payload.tool matches /s[a-z]*sh[0-9]/ set payload.args = "ls" }
hook c on tool.pre_execute at *::llm { when payload.args contains "curl http://evil" meta evil = true }
hook d on tool.post_execute { when payload.result matches /AKIA[A-Z0-9]{16}/ abort "a key" }
hook e on tool.post_execute { when payload.result matches /gh[pousr]_[A-Za-z0-9]{36}/ abort "a token" }
"#;
        crate::compile_str("t.hooks", RULES).unwrap().table.to_bytes()
    })
}

/// `bytes` written to a new file.
fn file_of(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(bytes).unwrap();
    file.flush().unwrap();
    file
}

fn read(file: &tempfile::NamedTempFile) -> Result<Table, ReadError> {
    Table::read_file(std::fs::File::open(file.path()).unwrap())
}

/// What a dispatch of `args` at `tool.pre_execute` on `builtin::llm`
/// decides: the reason, the rules fired, the payload after, the warnings.
fn decide(
    table: &Table,
    args: &str,
) -> (Option<String>, Vec<String>, serde_json::Value, Vec<String>) {
    let mut scratch = table.scratch();
    let target = crate::Target::new("builtin::llm");
    let mut ctx = crate::HookContext::new(
        "tool.pre_execute",
        "builtin::llm",
        serde_json::json!({"tool": if args.starts_with('x') { "ssh2" } else { "exec" }, "args": args}),
    );
    let outcome = table.dispatch(&mut scratch, "tool.pre_execute", &target, &mut ctx);
    (
        outcome.reason().map(str::to_owned),
        outcome.fired().map(str::to_owned).collect(),
        ctx.payload.clone(),
        outcome.warnings().to_vec(),
    )
}

const ARGS: [&str; 4] = [
    "x; curl http://evil12",
    "rm -rf /tmp/x",
    "ls -la",
    "rm  -rf / && curl http://evil3",
];

#[test]
fn a_table_read_from_its_file_decides_as_its_bytes_and_reads_only_what_it_searches() {
    let bytes = compiled();
    let file = file_of(bytes);
    let whole = Table::from_bytes(bytes).unwrap();
    for args in ARGS {
        let table = read(&file).unwrap();
        // The load read the header, the program block and the directory.
        let program_len = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
        let dfas = &table.loaded().dfas;
        assert_eq!(dfas.len(), 3);
        assert_eq!(
            table.inner.borrow_owner().bytes().len(),
            HEADER_LEN + program_len + 12 * dfas.len()
        );
        assert!(dfas.iter().all(|d| !d.is_read()));
        let decided = decide(&table, args);
        assert_eq!(decided, decide(&whole, args), "{args}");
        assert!(decided.3.is_empty(), "{args}: {:?}", decided.3);
        // The dispatch read the DFAs of the fields it searched, and not
        // the one at `tool.post_execute`.
        let read = dfas.iter().filter(|d| d.is_read()).count();
        assert_eq!(read, 2, "{args}");
        // Everything else reads as the bytes do.
        assert_eq!(table.to_bytes(), bytes);
        table.validate().unwrap();
        assert_eq!(table.program(), whole.program());
        assert_eq!(table.byte_len(), bytes.len());
    }
}

/// The file changed in place after the load (truncated, or rewritten
/// with other bytes of the same length): the sections no longer read as
/// the directory says, so their patterns are matched one by one from the
/// regexes of the program block read at load, and the answers are the
/// table's as first read, with a warning that says why.
#[test]
fn a_table_file_changed_in_place_after_its_load_answers_as_first_read() {
    let bytes = compiled();
    let whole = Table::from_bytes(bytes).unwrap();
    let program_len = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
    let count = u32::from_le_bytes(bytes[28..32].try_into().unwrap()) as usize;
    let first = HEADER_LEN + program_len + 12 * count;
    let zeros = vec![0u8; bytes.len()];
    let changes: [(&str, &[u8], &str); 3] = [
        ("truncated", &bytes[..first], "cannot read it"),
        ("zeroed", &zeros, "checksum"),
        ("another table", &[], "checksum"),
    ];
    for (what, now, why) in changes {
        for args in ARGS {
            let file = file_of(bytes);
            let table = read(&file).unwrap();
            let now = if now.is_empty() {
                // The same table, its DFAs' bytes reversed.
                let mut other = bytes.to_vec();
                other[first..].reverse();
                other
            } else {
                now.to_vec()
            };
            std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(file.path())
                .unwrap()
                .write_all(&now)
                .unwrap();
            let (reason, fired, payload, warnings) = decide(&table, args);
            let expected = decide(&whole, args);
            assert_eq!(
                (&reason, &fired, &payload),
                (&expected.0, &expected.1, &expected.2),
                "{what}: {args}"
            );
            assert!(
                warnings
                    .iter()
                    .any(|w| w.starts_with("corrupted table: DFA section") && w.contains(why)),
                "{what}: {args}: {warnings:?}"
            );
        }
    }
}

#[test]
fn a_file_that_is_not_a_table_is_a_typed_error() {
    let bytes = Table::from_program(sample()).unwrap().to_bytes();
    let kind = |b: &[u8]| match read(&file_of(b)) {
        Err(ReadError::Load(e)) => e.kind().clone(),
        Err(ReadError::Io(e)) => panic!("{e}"),
        Ok(_) => panic!("{} bytes loaded", b.len()),
    };
    assert!(matches!(
        kind(&[]),
        LoadErrorKind::TooShort { what: "header", .. }
    ));
    let mut foreign = bytes.clone();
    foreign[0] = b'X';
    assert_eq!(kind(&foreign), LoadErrorKind::Label);
    let mut version = bytes.clone();
    version[16..20].copy_from_slice(&99u32.to_le_bytes());
    assert!(matches!(
        kind(&version),
        LoadErrorKind::Version { found: 99, .. }
    ));
    let mut trailing = bytes.clone();
    trailing.extend_from_slice(&[7; 300]);
    assert!(matches!(
        kind(&trailing),
        LoadErrorKind::Invalid(m) if m == "300 unexpected bytes after the last section"
    ));
    // Every truncation, of the sample and of the compiled fixture (whose
    // DFA sections make the last of it).
    for len in 0..bytes.len() {
        assert!(read(&file_of(&bytes[..len])).is_err(), "{len} bytes");
    }
    let compiled = compiled();
    for len in (0..compiled.len()).step_by(97).chain([compiled.len() - 1]) {
        assert!(
            matches!(read(&file_of(&compiled[..len])), Err(ReadError::Load(_))),
            "{len} bytes"
        );
    }
}

/// A signed table reads from its file as it loads from its bytes: its
/// signer named, its bytes whole (the signature is checked only by the
/// verified loads, which read every byte).
#[test]
fn a_signed_table_reads_from_its_file() {
    let key = SecretKey::from_seed(&[3; 32]);
    let signed = Table::from_bytes(compiled()).unwrap().to_signed_bytes(&key);
    let table = read(&file_of(&signed)).unwrap();
    assert_eq!(table.signer(), Some(key.public_key()));
    assert_eq!(table.to_bytes(), signed);
    assert_eq!(
        decide(&table, ARGS[1]),
        decide(&Table::from_bytes(&signed).unwrap(), ARGS[1])
    );
}
