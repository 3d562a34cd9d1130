//! Signed tables: `hookc keygen`, `hookc compile --sign`,
//! `Table::from_bytes_verified` and `hookc claude --verify-key`. A table that
//! is unsigned, signed by another key, or changed in any byte after signing
//! (even with its CRC fixed up) must not load where a signature is required.
//! A DFA section crafted the same way (its CRC fixed up) loads unsigned, is
//! never searched, and changes no answer.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "tests fail loudly on bad fixtures and index tables they just built"
)]

use crate::common;
use common::{hookc_in, Run};

use hookc::table::{LoadErrorKind, PublicKey, SecretKey, HEADER_LEN};
use hookc::{HookContext, HookPoint, Table, Target};
use serde_json::json;
use std::path::{Path, PathBuf};

fn tmp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("signing")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

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

const DENY: &str = r#"
hook deny-rm on tool.pre_execute at *::* {
    when payload.args contains "rm -rf"
    abort "no rm"
}
"#;

const GOLDEN_RULES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/v4/guard.hooks");

fn key(n: u8) -> SecretKey {
    SecretKey::from_seed(&[n; 32])
}

/// True when the table denies `rm -rf /`.
fn denies(table: &Table) -> bool {
    let mut scratch = table.scratch();
    let mut ctx = HookContext::new(
        HookPoint::ToolPreExecute,
        "builtin::llm",
        json!({"tool": "exec", "args": "rm -rf /"}),
    );
    table
        .dispatch(
            &mut scratch,
            HookPoint::ToolPreExecute,
            &Target::new("builtin::llm"),
            &mut ctx,
        )
        .is_abort()
}

fn kind(result: Result<Table, hookc::LoadError>) -> LoadErrorKind {
    result.map(|_| ()).unwrap_err().kind().clone()
}

/// Writes every checksum of the table anew (the header's, each point
/// block's, each DFA section's), as a hand-made table has them.
fn fix_crc(bytes: &mut [u8]) {
    hookc::table::encoding::reseal(bytes).unwrap();
}

#[test]
fn a_signed_table_verifies_and_still_loads_unverified() {
    let table = hookc::compile_str("a.hooks", DENY).unwrap().table;
    let signed = table.to_signed_bytes(&key(1));
    let unsigned = table.to_bytes();
    assert_eq!(signed.len(), unsigned.len() + 108);
    assert_eq!(
        &signed[..unsigned.len()],
        &unsigned[..],
        "the unsigned table is a prefix"
    );

    let verified = Table::from_bytes_verified(&signed, &key(1).public_key()).unwrap();
    assert!(denies(&verified));
    assert_eq!(verified.signer(), Some(key(1).public_key()));
    let plain = Table::from_bytes(&signed).unwrap();
    assert!(denies(&plain));
    assert_eq!(plain.to_bytes(), signed);
    assert_eq!(table.signer(), None);

    // Re-signing replaces the signature rather than stacking another.
    let resigned = verified.to_signed_bytes(&key(2));
    assert_eq!(resigned.len(), signed.len());
    Table::from_bytes_verified(&resigned, &key(2).public_key()).unwrap();
}

#[test]
fn unsigned_and_foreign_tables_are_refused() {
    let table = hookc::compile_str("a.hooks", DENY).unwrap().table;
    let public = key(1).public_key();
    assert!(matches!(
        kind(Table::from_bytes_verified(&table.to_bytes(), &public)),
        LoadErrorKind::Unsigned { key } if key == public.id()
    ));
    let foreign = table.to_signed_bytes(&key(2));
    assert!(matches!(
        kind(Table::from_bytes_verified(&foreign, &public)),
        LoadErrorKind::SignedByAnotherKey { expected, found }
            if expected == public.id() && found == key(2).public_key().id()
    ));
    // A table that does not load says why, not only that it is unsigned.
    assert!(matches!(
        kind(Table::from_bytes_verified(b"not a table", &public)),
        LoadErrorKind::TooShort { .. }
    ));
    // The signature block cut off: the unsigned table, refused.
    let signed = table.to_signed_bytes(&key(1));
    let stripped = &signed[..signed.len() - 108];
    assert!(matches!(
        kind(Table::from_bytes_verified(stripped, &public)),
        LoadErrorKind::Unsigned { .. }
    ));
    // Truncated anywhere: refused.
    for cut in [1, 2, 64, 100, 107, 109, 200] {
        let short = &signed[..signed.len() - cut];
        assert!(
            Table::from_bytes_verified(short, &public).is_err(),
            "cut {cut}"
        );
    }
    // Bytes appended after the block: refused.
    let mut long = signed.clone();
    long.extend_from_slice(&[0; 4]);
    assert!(Table::from_bytes_verified(&long, &public).is_err());
}

/// Every byte of a signed table changed in three ways: none verifies.
#[test]
fn no_single_byte_change_verifies() {
    let table = hookc::compile_str("a.hooks", DENY).unwrap().table;
    let signed = table.to_signed_bytes(&key(1));
    let public = key(1).public_key();
    assert!(signed.len() > 250, "{}", signed.len());
    for at in 0..signed.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut changed = signed.clone();
            changed[at] ^= flip;
            assert!(
                Table::from_bytes_verified(&changed, &public).is_err(),
                "byte {at} ^ {flip:#04x} verifies"
            );
        }
    }
}

/// A real table with DFA sections: a dense sample of its bytes, and every
/// byte of its header and signature block.
#[test]
fn no_sampled_byte_change_of_a_large_table_verifies() {
    let table = hookc::compile_paths(&[GOLDEN_RULES], &hookc::Options::default())
        .unwrap()
        .table;
    let signed = table.to_signed_bytes(&key(3));
    let public = key(3).public_key();
    let len = signed.len();
    assert!(len > 10_000, "{len}");
    let positions = (0..HEADER_LEN)
        .chain((HEADER_LEN..len - 108).step_by(61))
        .chain(len - 108..len);
    for at in positions {
        let mut changed = signed.clone();
        changed[at] ^= 0x10;
        let result = Table::from_bytes_verified(&changed, &public);
        assert!(result.is_err(), "byte {at} of {len} changed verifies");
    }
}

/// The tampering a CRC cannot see: change the body, fix the checksum. The
/// table loads unverified (and no longer denies); verified, it is refused.
#[test]
fn a_fixed_up_crc_does_not_make_a_changed_table_verify() {
    let table = hookc::compile_str("a.hooks", DENY).unwrap().table;
    let signed = table.to_signed_bytes(&key(1));
    let public = key(1).public_key();
    // The deny's literal, everywhere the program has it: "rm -rf" becomes
    // "rm -rg".
    let places: Vec<usize> = signed
        .windows(6)
        .enumerate()
        .filter(|(_, w)| *w == b"rm -rf")
        .map(|(at, _)| at + 5)
        .collect();
    assert!(!places.is_empty());
    let mut changed = signed.clone();
    for &at in &places {
        changed[at] = b'g';
    }
    fix_crc(&mut changed);

    let loaded = Table::from_bytes(&changed).expect("the CRC is right, so it loads unverified");
    assert!(!denies(&loaded), "the change dropped the deny");
    assert!(matches!(
        kind(Table::from_bytes_verified(&changed, &public)),
        LoadErrorKind::BadSignature { .. }
    ));

    // Without the fix-up the checksums catch it even unverified: the
    // point block's, where the literal is, at the first dispatch there
    // (which aborts), and all of them in `validate`.
    let mut broken = signed.clone();
    broken[places[0]] = b'g';
    let loaded = Table::from_bytes(&broken).expect("a load checks the program block's head");
    let mut scratch = loaded.scratch();
    let mut ctx = HookContext::new(
        HookPoint::ToolPreExecute,
        "builtin::llm",
        json!({"tool": "exec", "args": "ls"}),
    );
    let outcome = loaded.dispatch(
        &mut scratch,
        HookPoint::ToolPreExecute,
        &Target::new("builtin::llm"),
        &mut ctx,
    );
    assert!(outcome.is_abort());
    assert!(
        outcome.reason().unwrap().contains("checksum"),
        "{:?}",
        outcome.reason()
    );
    assert!(loaded.validate().is_err());
}

/// A whole other table (the rule switched off) wearing the original's
/// signature block.
#[test]
fn another_table_with_a_copied_signature_is_refused() {
    let signed = hookc::compile_str("a.hooks", DENY)
        .unwrap()
        .table
        .to_signed_bytes(&key(1));
    let disabled = hookc::compile_str("a.hooks", &DENY.replace("at *::* {", "at *::* disabled {"))
        .unwrap()
        .table;
    let mut forged = disabled.to_bytes();
    forged.extend_from_slice(&signed[signed.len() - 108..]);
    let loaded = Table::from_bytes(&forged).unwrap();
    assert!(!denies(&loaded));
    assert!(matches!(
        kind(Table::from_bytes_verified(&forged, &key(1).public_key())),
        LoadErrorKind::BadSignature { .. }
    ));
}

#[test]
fn keys_round_trip_through_pem() {
    let secret = key(9);
    let pem = secret.to_pem();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----\n"), "{}", *pem);
    let back = SecretKey::from_pem(&pem).unwrap();
    assert_eq!(back.public_key(), secret.public_key());
    let public = secret.public_key().to_pem();
    assert!(
        public.starts_with("-----BEGIN PUBLIC KEY-----\n"),
        "{public}"
    );
    assert_eq!(PublicKey::from_pem(&public).unwrap(), secret.public_key());
    assert!(
        PublicKey::from_pem(&pem).is_err(),
        "a secret key is not a public key"
    );
    assert!(SecretKey::from_pem(&public).is_err());
    assert!(PublicKey::from_pem("hello").is_err());
    assert_eq!(secret.public_key().id().len(), 16);
}

/// Keys written by OpenSSL work, when it is installed.
#[test]
fn openssl_keys_work() {
    let dir = tmp_dir("openssl");
    let generated = std::process::Command::new("openssl")
        .args(["genpkey", "-algorithm", "ed25519", "-out"])
        .arg(dir.join("k.pem"))
        .status();
    if !generated.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no openssl with ed25519");
        return;
    }
    let status = std::process::Command::new("openssl")
        .args(["pkey", "-pubout", "-in"])
        .arg(dir.join("k.pem"))
        .arg("-out")
        .arg(dir.join("k.pub"))
        .status()
        .unwrap();
    assert!(status.success());
    let secret = SecretKey::from_pem(&std::fs::read_to_string(dir.join("k.pem")).unwrap()).unwrap();
    let public = PublicKey::from_pem(&std::fs::read_to_string(dir.join("k.pub")).unwrap()).unwrap();
    assert_eq!(secret.public_key(), public);
}

// The command line.

const EVENT: &str = r#"{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}"#;

const CLAUDE_RULES: &str = r#"schema claude-code

hook no-rm on PreToolUse {
    when payload.tool_input.command contains "rm -rf"
    deny "no rm"
}
"#;

/// A directory with `rules/a.hooks`, a key pair `k` / `k.pub` and a signed
/// table `signed.tbl` and an unsigned one `unsigned.tbl`.
fn project(name: &str) -> PathBuf {
    let dir = tmp_dir(name);
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    std::fs::write(dir.join("rules/a.hooks"), CLAUDE_RULES).unwrap();
    assert_code(&hookc_in(&dir, &["keygen", "-o", "k"], None), 0);
    let run = hookc_in(
        &dir,
        &["compile", "rules", "-o", "signed.tbl", "--sign", "k"],
        None,
    );
    assert_code(&run, 0);
    assert!(run.stderr.contains(", signed by key "), "{}", run.stderr);
    assert_code(
        &hookc_in(&dir, &["compile", "rules", "-o", "unsigned.tbl"], None),
        0,
    );
    dir
}

#[test]
fn keygen_writes_a_private_pair_and_never_overwrites() {
    let dir = tmp_dir("keygen");
    let run = hookc_in(&dir, &["keygen", "-o", "k"], None);
    assert_code(&run, 0);
    assert!(
        run.stderr.contains("wrote the secret key to `k`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("wrote the public key to `k.pub`"),
        "{}",
        run.stderr
    );
    let secret = std::fs::read_to_string(dir.join("k")).unwrap();
    let public = std::fs::read_to_string(dir.join("k.pub")).unwrap();
    let secret = SecretKey::from_pem(&secret).unwrap();
    assert_eq!(PublicKey::from_pem(&public).unwrap(), secret.public_key());
    assert!(
        run.stderr.contains(&secret.public_key().id()),
        "{}",
        run.stderr
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("k"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let before = std::fs::read(dir.join("k")).unwrap();
    let run = hookc_in(&dir, &["keygen", "-o", "k"], None);
    assert_code(&run, 2);
    assert!(
        run.stderr
            .contains("error: `k` already exists: not overwritten"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(dir.join("k")).unwrap(), before);

    // Only the public half exists: still refused, and no secret key made.
    std::fs::write(dir.join("other.pub"), "x").unwrap();
    let run = hookc_in(&dir, &["keygen", "-o", "other"], None);
    assert_code(&run, 2);
    assert!(
        run.stderr.contains("`other.pub` already exists"),
        "{}",
        run.stderr
    );
    assert!(!dir.join("other").exists());
}

#[test]
fn inspect_names_the_signer() {
    let dir = project("inspect");
    let key = PublicKey::from_pem(&std::fs::read_to_string(dir.join("k.pub")).unwrap()).unwrap();
    let run = hookc_in(&dir, &["inspect", "signed.tbl"], None);
    assert_code(&run, 0);
    assert!(
        run.stdout.contains(&format!("signed  by key {}", key.id())),
        "{}",
        run.stdout
    );
    let run = hookc_in(&dir, &["inspect", "unsigned.tbl"], None);
    assert!(!run.stdout.contains("signed  by"), "{}", run.stdout);
    for (table, signed, key_id) in [
        ("signed.tbl", true, serde_json::Value::from(key.id())),
        ("unsigned.tbl", false, serde_json::Value::Null),
    ] {
        let run = hookc_in(&dir, &["inspect", table, "--format", "json"], None);
        assert_code(&run, 0);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(v["signature"]["signed"], signed, "{table}");
        assert_eq!(v["signature"]["key_id"], key_id, "{table}");
    }
}

#[test]
fn compile_sign_needs_a_secret_key() {
    let dir = project("sign-errors");
    let run = hookc_in(
        &dir,
        &["compile", "rules", "-o", "x.tbl", "--sign", "k.pub"],
        None,
    );
    assert_code(&run, 2);
    assert!(
        run.stderr
            .contains("cannot use `k.pub` to sign: this is a public key"),
        "{}",
        run.stderr
    );
    let run = hookc_in(
        &dir,
        &["compile", "rules", "-o", "x.tbl", "--sign", "missing"],
        None,
    );
    assert_code(&run, 2);
    assert!(
        run.stderr.contains("cannot read `missing`"),
        "{}",
        run.stderr
    );
    assert!(!dir.join("x.tbl").exists());
}

#[test]
fn claude_with_a_verify_key_uses_only_signed_tables() {
    let dir = project("claude");
    let claude = |table: &str, extra: &[&str]| {
        let mut args = vec!["claude", "--table", table, "--verify-key", "k.pub"];
        args.extend_from_slice(extra);
        hookc_in(&dir, &args, Some(EVENT))
    };
    // Signed by the key: the rules run.
    let run = claude("signed.tbl", &[]);
    assert_code(&run, 0);
    assert!(
        run.stdout.contains("\"permissionDecision\":\"deny\""),
        "{}",
        run.stdout
    );

    // Unsigned: fails open (exit 0, no decision, the reason on stderr)…
    let run = claude("unsigned.tbl", &[]);
    assert_code(&run, 0);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("the table is not signed"),
        "{}",
        run.stderr
    );
    // …or closed.
    let run = claude("unsigned.tbl", &["--fail-closed"]);
    assert_code(&run, 2);
    assert!(
        run.stderr.contains("the table is not signed"),
        "{}",
        run.stderr
    );

    // One byte changed, the CRC fixed up.
    let mut bytes = std::fs::read(dir.join("signed.tbl")).unwrap();
    let at = bytes.windows(5).position(|w| w == b"no rm").unwrap();
    bytes[at + 3] = b'R';
    fix_crc(&mut bytes);
    std::fs::write(dir.join("changed.tbl"), &bytes).unwrap();
    let plain = hookc_in(&dir, &["claude", "--table", "changed.tbl"], Some(EVENT));
    assert!(
        plain.stdout.contains("no Rm"),
        "without a key it loads: {}",
        plain.stdout
    );
    let run = claude("changed.tbl", &["--fail-closed"]);
    assert_code(&run, 2);
    assert!(
        run.stderr.contains("modified after signing"),
        "{}",
        run.stderr
    );

    // Signed by another key.
    assert_code(&hookc_in(&dir, &["keygen", "-o", "other"], None), 0);
    let run = hookc_in(
        &dir,
        &[
            "claude",
            "--table",
            "signed.tbl",
            "--verify-key",
            "other.pub",
            "--fail-closed",
        ],
        Some(EVENT),
    );
    assert_code(&run, 2);
    assert!(
        run.stderr.contains("not by the trusted key"),
        "{}",
        run.stderr
    );

    // `.hooks` rules cannot be signed: refused.
    let run = hookc_in(
        &dir,
        &[
            "claude",
            "--rules",
            "rules",
            "--verify-key",
            "k.pub",
            "--fail-closed",
        ],
        Some(EVENT),
    );
    assert_code(&run, 2);
    assert!(
        run.stderr.contains("which are not signed"),
        "{}",
        run.stderr
    );

    // The key file is the secret key, or missing: refused, never ignored.
    for bad in ["k", "missing.pub"] {
        let run = hookc_in(
            &dir,
            &[
                "claude",
                "--table",
                "signed.tbl",
                "--verify-key",
                bad,
                "--fail-closed",
            ],
            Some(EVENT),
        );
        assert_code(&run, 2);
        assert!(run.stderr.contains(bad), "{}", run.stderr);
    }
}

#[test]
fn claude_reads_the_verify_key_from_hookc_toml() {
    let dir = project("claude-config");
    let project_dir = dir.join("project");
    let hookc_dir = project_dir.join(".hookc");
    std::fs::create_dir_all(&hookc_dir).unwrap();
    std::fs::copy(dir.join("k.pub"), hookc_dir.join("trusted.pub")).unwrap();
    std::fs::write(
        hookc_dir.join("hookc.toml"),
        "[claude]\nverify-key = \"trusted.pub\"\n",
    )
    .unwrap();
    let run_with = |table: &str| {
        std::fs::copy(dir.join(table), hookc_dir.join("rules.tbl")).unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hookc"))
            .args(["claude", "--fail-closed"])
            .env("CLAUDE_PROJECT_DIR", &project_dir)
            .env_remove("HOOKC_TABLE")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(EVENT.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let signed = run_with("signed.tbl");
    assert_eq!(signed.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&signed.stdout).contains("deny"));
    let unsigned = run_with("unsigned.tbl");
    assert_eq!(unsigned.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unsigned.stderr).contains("the table is not signed"));

    // A configuration that cannot be read may be the one asking for
    // signatures: it fails too.
    std::fs::write(hookc_dir.join("hookc.toml"), "[claude\n").unwrap();
    let broken = run_with("signed.tbl");
    assert_eq!(broken.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&broken.stderr).contains("has errors"));
}

#[test]
fn watch_signs_each_table() {
    let dir = project("watch");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hookc"))
        .args([
            "watch",
            "rules",
            "-o",
            "watched.tbl",
            "--sign",
            "k",
            "--poll",
            "--interval",
            "20",
        ])
        .current_dir(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let public = PublicKey::from_pem(&std::fs::read_to_string(dir.join("k.pub")).unwrap()).unwrap();
    let start = std::time::Instant::now();
    // No assertion while it runs: a panic would leave it running.
    let verified = loop {
        if let Ok(bytes) = std::fs::read(dir.join("watched.tbl")) {
            break Some(Table::from_bytes_verified(&bytes, &public));
        }
        if start.elapsed() > std::time::Duration::from_secs(20) {
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let _ = child.kill();
    let _ = child.wait();
    let verified = verified.expect("hookc watch wrote no table in 20 s");
    assert!(verified.is_ok(), "{:?}", verified.err());
}

/// A DFA section is validated when a dispatch first searches it, not at
/// load: a section crafted to fail validation (its CRC fixed up, as only a
/// hand-made table has it) loads, is never searched, and its patterns are
/// matched one by one from their regexes, so every answer stays the same.
#[test]
fn a_dfa_section_that_does_not_validate_is_not_searched() {
    const RULES: &str = r#"
hook no-rm on tool.pre_execute at *::* {
    when payload.args matches /rm\s+-[a-z]*r/
    abort "no rm"
}
hook no-mkfs on tool.pre_execute at *::* {
    when payload.args matches /mkfs\.[a-z0-9]+/
    abort "no mkfs"
}
"#;
    let good = hookc::compile_str("a.hooks", RULES).unwrap().table;
    let mut bytes = good.to_bytes();
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let program_len = u32_at(&bytes, 20) as usize;
    assert!(
        u32_at(&bytes, 28) >= 1,
        "the rules compile to a DFA section"
    );
    // Every section crafted: every transition byte in the middle of each
    // DFA set to a state id that names no state.
    let count = u32_at(&bytes, 28) as usize;
    let directory = HEADER_LEN + program_len;
    let mut at = directory + 12 * count;
    for i in 0..count {
        // The directory's entry: [length, kind, checksum]; then the DFAs.
        let entry = directory + 12 * i;
        let len = u32_at(&bytes, entry) as usize;
        let (body, end) = (at, at + len);
        for b in &mut bytes[body + 64..end - 16] {
            *b = 0xff;
        }
        let invalid = match u32_at(&bytes, entry + 4) {
            0 => regex_automata::dfa::dense::DFA::from_bytes(&bytes[body..end]).is_err(),
            _ => regex_automata::dfa::sparse::DFA::from_bytes(&bytes[body..end]).is_err(),
        };
        assert!(invalid, "the crafted section must fail validation");
        at = end.next_multiple_of(4);
    }
    fix_crc(&mut bytes);
    let crafted = Table::from_bytes(&bytes).expect("a DFA is validated when first searched");
    for (args, reason) in [
        ("rm -rf /", Some("no rm")),
        ("sudo rm -fr /tmp/x", Some("no rm")),
        ("mkfs.ext4 /dev/sda1", Some("no mkfs")),
        ("ls -la", None),
        ("rm file", None),
    ] {
        for table in [&good, &crafted] {
            let mut scratch = table.scratch();
            let mut ctx = HookContext::new(
                HookPoint::ToolPreExecute,
                "builtin::llm",
                json!({"tool": "exec", "args": args}),
            );
            let outcome = table.dispatch(
                &mut scratch,
                HookPoint::ToolPreExecute,
                &Target::new("builtin::llm"),
                &mut ctx,
            );
            assert_eq!(outcome.reason(), reason, "{args}");
            // The host hears why the crafted table took longer.
            let warned = outcome
                .warnings()
                .iter()
                .any(|w| w.starts_with("corrupted table: DFA section"));
            assert_eq!(warned, std::ptr::eq(table, &crafted), "{args}");
        }
    }
    // A flipped bit in a DFA section, its checksum left as it was, is
    // found the same way: at first use, with the same answers.
    let mut flipped = good.to_bytes();
    let count = u32_at(&flipped, 28) as usize;
    let at = HEADER_LEN + program_len + 12 * count + 100;
    flipped[at] ^= 0x01;
    let flipped = Table::from_bytes(&flipped).expect("a DFA is checked when first searched");
    let mut scratch = flipped.scratch();
    let mut ctx = HookContext::new(
        HookPoint::ToolPreExecute,
        "builtin::llm",
        json!({"tool": "exec", "args": "rm -rf /"}),
    );
    let outcome = flipped.dispatch(
        &mut scratch,
        HookPoint::ToolPreExecute,
        &Target::new("builtin::llm"),
        &mut ctx,
    );
    assert_eq!(outcome.reason(), Some("no rm"));
    assert!(
        outcome.warnings().iter().any(|w| w.contains("checksum")),
        "{:?}",
        outcome.warnings()
    );
    assert!(matches!(
        flipped.validate().unwrap_err().kind(),
        LoadErrorKind::Dfa { .. }
    ));
}

/// `bytes` copied into memory that lives as long as the test process,
/// 4-byte aligned, as `Table::from_static` takes them.
fn leaked(bytes: &[u8]) -> &'static [u8] {
    let mut words = vec![0u32; bytes.len().div_ceil(4)];
    bytemuck::cast_slice_mut::<u32, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
    &bytemuck::cast_slice::<u32, u8>(words.leak())[..bytes.len()]
}

/// A table read in place (its DFAs searched where they lie) decides as
/// one loaded from owned bytes; signed, it verifies in place too, and a
/// changed or unsigned one does not.
#[test]
fn a_table_read_in_place_decides_the_same_and_verifies() {
    let rules = r#"
hook deny-rm on tool.pre_execute at *::* {
    when payload.args matches /rm\s+-rf/
    abort "no rm"
}
"#;
    let table = hookc::compile_str("a.hooks", rules).unwrap().table;
    let bytes = table.to_bytes();
    assert!(
        u32::from_le_bytes(bytes[28..32].try_into().unwrap()) >= 1,
        "a DFA section to search in place"
    );
    let in_place = Table::from_static(leaked(&bytes)).unwrap();
    assert!(denies(&in_place));
    let mut scratch = in_place.scratch();
    let mut ctx = HookContext::new(
        HookPoint::ToolPreExecute,
        "builtin::llm",
        json!({"tool": "exec", "args": "ls"}),
    );
    let outcome = in_place.dispatch(
        &mut scratch,
        HookPoint::ToolPreExecute,
        &Target::new("builtin::llm"),
        &mut ctx,
    );
    assert!(outcome.is_continue());
    in_place.validate().unwrap();

    let public = key(1).public_key();
    let signed = table.to_signed_bytes(&key(1));
    let verified = Table::from_static_verified(leaked(&signed), &public).unwrap();
    assert!(denies(&verified));
    assert!(matches!(
        kind(Table::from_static_verified(
            leaked(&table.to_bytes()),
            &public
        )),
        LoadErrorKind::Unsigned { .. }
    ));
    let mut changed = signed.clone();
    changed[HEADER_LEN + 40] ^= 1;
    assert!(matches!(
        kind(Table::from_static_verified(leaked(&changed), &public)),
        LoadErrorKind::BadSignature { .. }
    ));
}
