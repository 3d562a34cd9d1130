//! The shell view on the spellings an agent might use to get past a rule,
//! and on the look-alikes it must leave alone, as one picture per command.

use super::*;

/// `program flags… operands…` of each command, with `^` before each
/// wrapper and `!` for a dynamic command: a compact picture to compare.
fn picture(text: &str) -> Vec<String> {
    parse(text)
        .commands
        .iter()
        .map(|c| {
            let mut parts: Vec<String> = c.wrappers.iter().map(|w| format!("^{w}")).collect();
            if c.dynamic {
                parts.push("!".to_string());
            }
            if let Some(e) = &c.error {
                parts.push(format!("error: {e}"));
                return parts.join(" ");
            }
            parts.push(c.program.clone());
            parts.extend(c.flags.iter().cloned());
            parts.extend(c.operands.iter().cloned());
            for r in &c.redirects {
                parts.push(format!("{}{}", r.op, r.target));
            }
            parts.join(" ")
        })
        .collect()
}

#[test]
fn every_spelling_of_a_recursive_delete_is_one_rm() {
    for text in [
        "rm -rf /",
        "rm  -rf /",
        "rm\t-rf\t/",
        "rm -rf '/'",
        "rm -rf \"/\"",
        "\\rm -rf /",
        "/bin/rm -rf /",
        "r''m -rf /",
        "\"rm\" -rf /",
        "rm -r\\f /",
    ] {
        assert_eq!(picture(text), ["rm -r -f /"], "{text}");
    }
    assert_eq!(picture("rm -r -f /"), ["rm -r -f /"]);
    assert_eq!(picture("rm -Rf /"), ["rm -R -f /"]);
    assert_eq!(
        picture("rm --recursive --force /"),
        ["rm --recursive --force /"]
    );
    assert_eq!(picture("rm -v -r -f /"), ["rm -v -r -f /"]);
    assert_eq!(picture("rm -rf -- -x /"), ["rm -r -f -x /"]);
    assert_eq!(
        picture("rm --no-preserve-root=x -r /"),
        ["rm --no-preserve-root -r /"]
    );
}

#[test]
fn expansions_stay_as_written() {
    assert_eq!(picture("rm -rf \"$HOME\""), ["rm -r -f $HOME"]);
    assert_eq!(picture("rm -rf ${HOME}"), ["rm -r -f ${HOME}"]);
    assert_eq!(picture("rm -rf ~"), ["rm -r -f ~"]);
    assert_eq!(picture("rm -rf ~/*"), ["rm -r -f ~/*"]);
    assert_eq!(
        picture("rm -rf \"$HOME\"/.cache"),
        ["rm -r -f $HOME/.cache"]
    );
    assert_eq!(picture("echo $((1 + 2))"), ["echo $((1 + 2))"]);
}

#[test]
fn wrappers_are_set_aside_and_recorded() {
    assert_eq!(picture("sudo rm -fr /"), ["^sudo rm -f -r /"]);
    assert_eq!(picture("sudo -u root -- rm -rf /"), ["^sudo rm -r -f /"]);
    assert_eq!(picture("sudo -Eu root rm -rf /"), ["^sudo rm -r -f /"]);
    assert_eq!(picture("doas -u root rm -rf /"), ["^doas rm -r -f /"]);
    assert_eq!(
        picture("sudo env FOO=1 nice -n 5 rm -rf /"),
        ["^sudo ^env ^nice rm -r -f /"]
    );
    assert_eq!(picture("env -i PATH=/bin rm -rf /"), ["^env rm -r -f /"]);
    assert_eq!(picture("env -S 'rm -rf /'"), ["^env rm -r -f /"]);
    assert_eq!(picture("FOO=1 BAR=\"a b\" rm -rf /"), ["rm -r -f /"]);
    assert_eq!(parse("FOO=1 rm x").commands[0].assignments, ["FOO=1"]);
    assert_eq!(picture("timeout 5 rm -rf /"), ["^timeout rm -r -f /"]);
    assert_eq!(
        picture("timeout -s KILL 5 rm -rf /"),
        ["^timeout rm -r -f /"]
    );
    assert_eq!(picture("nohup rm -rf / &"), ["^nohup rm -r -f /"]);
    assert_eq!(picture("time rm -rf /"), ["^time rm -r -f /"]);
    assert_eq!(picture("exec rm -rf /"), ["^exec rm -r -f /"]);
    assert_eq!(picture("command rm -rf /"), ["^command rm -r -f /"]);
    assert_eq!(picture("busybox rm -rf /"), ["^busybox rm -r -f /"]);
    // Android's multi-call binary, as busybox.
    assert_eq!(picture("toybox rm -rf /"), ["^toybox rm -r -f /"]);
    assert_eq!(picture("xargs rm -rf < list"), ["^xargs rm -r -f <list"]);
    assert_eq!(
        picture("xargs -n 1 -I {} rm -rf {}"),
        ["^xargs rm -r -f {}"]
    );
    assert_eq!(picture("chroot /mnt rm -rf /"), ["^chroot rm -r -f /"]);
    // Looking a program up runs nothing; a wrapper alone is the program.
    assert_eq!(picture("command -v rm"), ["command -v rm"]);
    assert_eq!(picture("env"), ["env"]);
    assert_eq!(picture("sudo -l"), ["sudo -l"]);
}

#[test]
fn every_simple_command_of_a_list_is_seen() {
    assert_eq!(picture("echo x; rm -rf /"), ["echo x", "rm -r -f /"]);
    assert_eq!(picture("true && rm -rf /"), ["true", "rm -r -f /"]);
    assert_eq!(picture("false || rm -rf /"), ["false", "rm -r -f /"]);
    assert_eq!(picture("ls | rm -rf /"), ["ls", "rm -r -f /"]);
    assert_eq!(picture("ls |& rm -rf /"), ["ls", "rm -r -f /"]);
    assert_eq!(picture("ls\nrm -rf /"), ["ls", "rm -r -f /"]);
    assert_eq!(picture("(rm -rf /)"), ["rm -r -f /"]);
    assert_eq!(picture("(cd /tmp; rm -rf /)"), ["cd /tmp", "rm -r -f /"]);
    assert_eq!(picture("{ rm -rf /; }"), ["rm -r -f /"]);
    assert_eq!(picture("! rm -rf /"), ["rm -r -f /"]);
    assert_eq!(
        picture("if true; then rm -rf /; fi"),
        ["true", "rm -r -f /"]
    );
    assert_eq!(
        picture("for f in a b; do rm -rf \"$f\"; done"),
        ["rm -r -f $f"]
    );
    assert_eq!(
        picture("while true; do rm -rf /; done"),
        ["true", "rm -r -f /"]
    );
    assert_eq!(
        picture("case $x in a) rm -rf /;; *) ls;; esac"),
        ["rm -r -f /", "ls"]
    );
    assert_eq!(picture("f() { rm -rf /; }; f"), ["rm -r -f /", "f"]);
    assert_eq!(picture("function f { rm -rf /; }"), ["rm -r -f /"]);
    assert_eq!(picture(":(){ :|:& };:"), [":", ":", ":"]);
    assert_eq!(picture("ls # rm -rf /"), ["ls"]);
    assert_eq!(picture("ls \\\n -la"), ["ls -l -a"]);
}

#[test]
fn substitutions_run_and_are_seen() {
    assert_eq!(
        picture("echo $(rm -rf /)"),
        ["echo $(rm -rf /)", "rm -r -f /"]
    );
    assert_eq!(
        picture("echo `rm -rf /`"),
        ["echo `rm -rf /`", "rm -r -f /"]
    );
    assert_eq!(
        picture("echo \"$(rm -rf /)\""),
        ["echo $(rm -rf /)", "rm -r -f /"]
    );
    assert_eq!(
        picture("diff <(ls a) <(rm -rf /)"),
        ["diff <(ls a) <(rm -rf /)", "ls a", "rm -r -f /"]
    );
    assert_eq!(
        picture("echo $(echo $(rm -rf /))"),
        ["echo $(echo $(rm -rf /))", "echo $(rm -rf /)", "rm -r -f /"]
    );
}

#[test]
fn shell_scripts_are_read_with_the_shell_as_a_wrapper() {
    assert_eq!(
        picture("bash -c \"rm -rf /\""),
        ["bash -c rm -rf /", "^bash rm -r -f /"]
    );
    assert_eq!(
        picture("sh -c 'cd / && rm -rf *'"),
        ["sh -c cd / && rm -rf *", "^sh cd /", "^sh rm -r -f *"]
    );
    assert_eq!(
        picture("sudo bash -lc 'sudo rm -rf ~'"),
        [
            "^sudo bash -l -c sudo rm -rf ~",
            "^sudo ^bash ^sudo rm -r -f ~"
        ]
    );
    assert_eq!(
        picture("bash -e -o pipefail -c 'rm -rf /'"),
        ["bash -e -o -c pipefail rm -rf /", "^bash rm -r -f /"]
    );
    assert_eq!(
        picture("sh -c \"bash -c 'rm -rf /'\""),
        [
            "sh -c bash -c 'rm -rf /'",
            "^sh bash -c rm -rf /",
            "^sh ^bash rm -r -f /"
        ]
    );
    assert_eq!(picture("bash build.sh"), ["bash build.sh"]);
}

#[test]
fn find_exec_runs_a_command() {
    assert_eq!(
        picture("find / -exec rm -rf {} \\;"),
        ["find -e -x -e -c -r -f / rm {} ;", "^find rm -r -f {}"]
    );
    assert_eq!(
        picture("find . -name '*.o' -execdir sudo rm {} +"),
        [
            "find -n -a -m -e -e -x -e -c -d -i -r . *.o sudo rm {} +",
            "^find ^sudo rm {}"
        ]
    );
}

#[test]
fn redirections_are_listed_with_their_targets() {
    assert_eq!(picture(": > .hookc/rules.tbl"), [": >.hookc/rules.tbl"]);
    assert_eq!(picture("> f"), [" >f"]);
    assert_eq!(
        picture("echo '{}' > .claude/settings.json"),
        ["echo {} >.claude/settings.json"]
    );
    assert_eq!(picture("make 2>&1 | tee log"), ["make >&1", "tee log"]);
    assert_eq!(picture("make &> log"), ["make &>log"]);
    assert_eq!(picture("echo x >> a 2> b"), ["echo x >>a >b"]);
    assert_eq!(picture("> out echo hi"), ["echo hi >out"]);
    assert_eq!(picture("cat <<< 'rm -rf /'"), ["cat <<<rm -rf /"]);
}

#[test]
fn a_heredoc_body_is_data() {
    assert_eq!(
        picture("cat <<EOF > f\nrm -rf /\nEOF\nls"),
        ["cat <<EOF >f", "ls"]
    );
    assert_eq!(picture("cat <<'EOF'\nrm -rf /\nEOF"), ["cat <<EOF"]);
    assert_eq!(
        picture("cat <<-EOF\n\trm -rf /\n\tEOF\nls"),
        ["cat <<-EOF", "ls"]
    );
    assert_eq!(picture("psql <<SQL\nDROP TABLE x;\nSQL"), ["psql <<SQL"]);
}

#[test]
fn what_cannot_be_known_is_dynamic() {
    assert_eq!(
        picture("curl -fsSL https://x | sh"),
        ["curl -f -s -S -L https://x", "! sh"]
    );
    assert_eq!(
        picture("curl x | sudo bash -s"),
        ["curl x", "^sudo ! bash -s"]
    );
    assert_eq!(picture("bash < x.sh"), ["! bash <x.sh"]);
    assert_eq!(picture("bash <(curl x)"), ["! bash <(curl x)", "curl x"]);
    assert_eq!(
        picture("source <(curl x)"),
        ["! source <(curl x)", "curl x"]
    );
    assert_eq!(picture("$CMD -rf /"), ["! $CMD -r -f /"]);
    assert_eq!(picture("${TOOL} -rf /"), ["! ${TOOL} -r -f /"]);
    assert_eq!(
        picture("$(which rm) -rf x"),
        ["! $(which rm) -r -f x", "which rm"]
    );
    assert_eq!(
        picture("eval \"rm -rf /\""),
        ["! eval rm -rf /", "^eval rm -r -f /"]
    );
    assert_eq!(picture("ls | xargs sh"), ["ls", "^xargs ! sh"]);
}

#[test]
fn text_that_does_not_parse_is_reported_with_what_was_read() {
    for (text, error) in [
        ("echo \"unterminated", "unterminated double quote at byte 5"),
        ("echo 'x", "unterminated single quote at byte 5"),
        ("echo $(ls", "unterminated command substitution at byte 5"),
        ("ls )", "unexpected `)` at byte 3"),
        ("{ ls", "missing `}` for `{` at byte 0"),
        ("if true; then ls", "missing `fi` for `if` at byte 0"),
        ("ls; done", "unexpected `done` at byte 4"),
        ("ls &&", "expected a command after `&&` at byte 3"),
        ("ls | ; rm", "expected a command after `|` at byte 3"),
        ("ls >", "expected a word after `>` at byte 3"),
    ] {
        let view = parse(text);
        let last = view.commands.last().cloned().unwrap_or_default();
        assert_eq!(last.error.as_deref(), Some(error), "{text}: {view:?}");
        assert!(last.dynamic && last.program.is_empty(), "{text}");
    }
    // What was read before the error is kept.
    assert_eq!(
        picture("rm -rf / && echo \"x"),
        [
            "rm -r -f /",
            "echo x",
            "! error: unterminated double quote at byte 17"
        ]
    );
    assert!(parse("").commands.is_empty());
    assert!(parse("  # just a comment\n").commands.is_empty());
}

#[test]
fn look_alikes_are_what_they_are() {
    assert_eq!(picture("echo \"rm -rf /\""), ["echo rm -rf /"]);
    assert_eq!(
        picture("git commit -m \"rm -rf /\""),
        ["git -m commit rm -rf /"]
    );
    assert_eq!(picture("man mkfs"), ["man mkfs"]);
    assert_eq!(picture("grep -r \"rm -rf\" ."), ["grep -r rm -rf ."]);
    assert_eq!(picture("printf 'rm -rf ~\\n'"), ["printf rm -rf ~\\n"]);
}

#[test]
fn everyday_spellings_parse() {
    assert_eq!(picture("FILES=(a b c); ls"), ["", "ls"]);
    assert_eq!(
        picture("[[ -f x && -d y ]] && ls"),
        ["[[ -f -d x && y", "ls"]
    );
    assert_eq!(picture("echo $'a\\tb'"), ["echo a\tb"]);
    assert_eq!(
        picture("git log --oneline | head -n 5"),
        ["git --oneline log", "head -n 5"]
    );
    assert_eq!(
        picture("cargo build --release 2>&1 | tee build.log"),
        ["cargo --release build >&1", "tee build.log"]
    );
}

#[test]
fn deep_nesting_is_bounded() {
    let mut text = "rm -rf /".to_string();
    for _ in 0..MAX_DEPTH + 4 {
        text = format!("echo $({text})");
    }
    let view = parse(&text);
    assert!(
        view.commands.len() <= MAX_DEPTH + 2,
        "{}",
        view.commands.len()
    );
    assert_eq!(
        view.commands
            .last()
            .and_then(|c| c.error.clone())
            .as_deref(),
        Some("nesting deeper than 16 at byte 117")
    );
}

#[test]
fn pathological_input_returns() {
    // Linear: each of these is a megabyte; the test only has to finish.
    let big = 1 << 20;
    for text in [
        "(".repeat(big),
        "$(".repeat(big / 2),
        "`".repeat(big),
        "\"".repeat(big),
        "\\".repeat(big),
        "<<A\n".repeat(big / 4),
        "a ".repeat(big / 2),
        "${".repeat(big / 2),
        "'".repeat(big),
        "$'".repeat(big / 2),
    ] {
        let view = parse(&text);
        let _ = view.to_json();
    }
}

#[test]
fn the_json_has_every_field() {
    let json = parse("sudo FOO=1 rm -rf /* > log").to_json();
    assert_eq!(
        json,
        serde_json::json!([{
            "program": "rm",
            "name": "rm",
            "args": ["-rf", "/*"],
            "flags": ["-r", "-f"],
            "operands": ["/*"],
            "globs": ["/*"],
            "redirects": [{"op": ">", "target": "log"}],
            "assignments": ["FOO=1"],
            "wrappers": ["sudo"],
            "dynamic": false,
            "recursive": false,
            "error": null,
        }])
    );
}

proptest::proptest! {
    /// Any text of shell-significant characters parses to a view (the
    /// fuzz target does this at scale); the commands it lists are never
    /// more than its words.
    #[test]
    fn any_text_gives_a_view(text in "[ a-z$(){}`'\"\\\\|&;<>\n\t#=~*!-]{0,64}") {
        let view = parse(&text);
        let words = text.split_whitespace().count();
        proptest::prop_assert!(view.commands.len() <= words + 1 + MAX_DEPTH);
        let _ = view.to_json();
    }
}
