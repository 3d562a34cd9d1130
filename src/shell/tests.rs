//! Table-driven tests of the shell view.
//!
//! Each case gives an input and the commands expected, each rendered on one
//! line by [`render`]: `program flags… : operands… @wrappers redirects…
//! {assignments}… !dyn !err: message`.

use super::{parse, short_flag_bit, Buffers, Command, Redirect, View, MAX_DEPTH};
use serde_json::json;

/// One command on one line, for compact expectations.
fn render(command: &Command) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !command.program.is_empty() {
        parts.push(command.program.clone());
    }
    parts.extend(command.flags.iter().cloned());
    if !command.operands.is_empty() {
        parts.push(":".to_string());
        parts.extend(command.operands.iter().map(|operand| {
            if operand.is_empty() || operand.contains(' ') {
                format!("'{operand}'")
            } else {
                operand.clone()
            }
        }));
    }
    if !command.wrappers.is_empty() {
        parts.push(format!("@{}", command.wrappers.join(",")));
    }
    parts.extend(
        command
            .redirects
            .iter()
            .map(|r| format!("{}{}", r.op, r.target)),
    );
    parts.extend(command.assignments.iter().map(|a| format!("{{{a}}}")));
    if command.dynamic {
        parts.push("!dyn".to_string());
    }
    if let Some(error) = &command.error {
        parts.push(format!("!err: {error}"));
    }
    parts.join(" ")
}

fn rendered(text: &str) -> Vec<String> {
    parse(text).commands.iter().map(render).collect()
}

/// Checks every case and reports all mismatches at once.
fn check(cases: &[(&str, &[&str])]) {
    let mut failures = Vec::new();
    for (input, expected) in cases {
        let got = rendered(input);
        if got != *expected {
            failures.push(format!(
                "input {input:?}\n  expected {expected:?}\n  got      {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn rm_evasions() {
    check(&[
        ("rm -rf /", &["rm -r -f : /"]),
        ("rm  -rf /", &["rm -r -f : /"]),
        ("rm -r -f /", &["rm -r -f : /"]),
        ("rm -Rf /", &["rm -R -f : /"]),
        ("rm --recursive --force /", &["rm --recursive --force : /"]),
        ("rm\t-rf\t/", &["rm -r -f : /"]),
        ("rm -v -r -f /", &["rm -v -r -f : /"]),
        ("rm -rf '/'", &["rm -r -f : /"]),
        ("rm -rf \"$HOME\"", &["rm -r -f : $HOME"]),
        ("rm -rf ${HOME}", &["rm -r -f : ${HOME}"]),
        ("rm -rf ~", &["rm -r -f : ~"]),
        ("rm -rf *", &["rm -r -f : *"]),
        ("sudo rm -fr /", &["rm -f -r : / @sudo"]),
        ("sudo -u root -- rm -rf /", &["rm -r -f : / @sudo"]),
        ("\\rm -rf /", &["rm -r -f : /"]),
        ("/bin/rm -rf /", &["rm -r -f : /"]),
        ("r''m -rf /", &["rm -r -f : /"]),
        ("\"r\"m -rf /", &["rm -r -f : /"]),
        ("\"rm\" -rf /", &["rm -r -f : /"]),
        ("$'rm' -rf /", &["rm -r -f : /"]),
        ("$'\\x72\\x6d' -rf /", &["rm -r -f : /"]),
        ("rm \\\n -rf /", &["rm -r -f : /"]),
        ("rm --force=yes -- -rf", &["rm --force : -rf"]),
        ("rm -rf - /", &["rm -r -f : - /"]),
        (
            "env -i PATH=/bin rm -rf /",
            &["rm -r -f : / @env {PATH=/bin}"],
        ),
        ("FOO=1 rm -rf /", &["rm -r -f : / {FOO=1}"]),
        (
            "sudo env FOO=1 nice -n 5 rm -rf /",
            &["rm -r -f : / @sudo,env,nice {FOO=1}"],
        ),
        ("nohup rm -rf / &", &["rm -r -f : / @nohup"]),
        ("echo x; rm -rf /", &["echo : x", "rm -r -f : /"]),
        ("true && rm -rf /", &["true", "rm -r -f : /"]),
        ("false || rm -rf /", &["false", "rm -r -f : /"]),
        ("ls | rm -rf / |& cat", &["ls", "rm -r -f : /", "cat"]),
        ("echo a\nrm -rf /", &["echo : a", "rm -r -f : /"]),
        ("! rm -rf /", &["rm -r -f : /"]),
        ("(rm -rf /)", &["rm -r -f : /"]),
        ("{ rm -rf /; }", &["rm -r -f : /"]),
        ("(cd / && (rm -rf *))", &["cd : /", "rm -r -f : *"]),
    ]);
}

#[test]
fn substitutions() {
    check(&[
        (
            "echo $(rm -rf /)",
            &["echo : '$(rm -rf /)'", "rm -r -f : /"],
        ),
        ("echo `rm -rf /`", &["echo : '`rm -rf /`'", "rm -r -f : /"]),
        (
            "echo \"$(rm -rf /)\"",
            &["echo : '$(rm -rf /)'", "rm -r -f : /"],
        ),
        (
            "echo \"a `rm -rf /` b\"",
            &["echo : 'a `rm -rf /` b'", "rm -r -f : /"],
        ),
        (
            "echo $(echo $(rm -rf /))",
            &[
                "echo : '$(echo $(rm -rf /))'",
                "echo : '$(rm -rf /)'",
                "rm -r -f : /",
            ],
        ),
        (
            "echo `echo \\`rm -rf /\\``",
            &[
                "echo : '`echo \\`rm -rf /\\``'",
                "echo : '`rm -rf /`'",
                "rm -r -f : /",
            ],
        ),
        (
            "diff <(ls a) >(rm -rf /)",
            &["diff : '<(ls a)' '>(rm -rf /)'", "ls : a", "rm -r -f : /"],
        ),
        (
            "echo ${x:-$(rm -rf /)}",
            &["echo : '${x:-$(rm -rf /)}'", "rm -r -f : /"],
        ),
        ("echo $((1 + 2))", &["echo : '$((1 + 2))'"]),
        (
            "echo $(( $(rm -rf /) + 1 ))",
            &["echo : '$(( $(rm -rf /) + 1 ))'", "rm -r -f : /"],
        ),
        (
            "echo $((rm -rf /); true)",
            &["echo : '$((rm -rf /); true)'", "rm -r -f : /", "true"],
        ),
        ("x=$(rm -rf /)", &["{x=$(rm -rf /)}", "rm -r -f : /"]),
        (
            "a=(1 2 $(rm -rf /))",
            &["{a=(1 2 $(rm -rf /))}", "rm -r -f : /"],
        ),
        (
            "echo $(case x in a) rm -rf /;; esac)",
            &["echo : '$(case x in a) rm -rf /;; esac)'", "rm -r -f : /"],
        ),
        (
            "cat <<EOF\n$(rm -rf /)\nEOF",
            &["cat <<EOF", "rm -r -f : /"],
        ),
        ("cat <<'EOF'\n$(rm -rf /)\nEOF", &["cat <<EOF"]),
        (
            "echo $(echo # )\nrm -rf /)",
            &["echo : '$(echo # )\nrm -rf /)'", "echo", "rm -r -f : /"],
        ),
        (
            "echo \"$(echo \")\")\"",
            &["echo : '$(echo \")\")'", "echo : )"],
        ),
    ]);
}

#[test]
fn nested_shells() {
    check(&[
        (
            "bash -c \"rm -rf /\"",
            &["bash -c : 'rm -rf /'", "rm -r -f : / @bash"],
        ),
        (
            "sh -c 'cd / && rm -rf *'",
            &[
                "sh -c : 'cd / && rm -rf *'",
                "cd : / @sh",
                "rm -r -f : * @sh",
            ],
        ),
        (
            "bash -lc 'sudo rm -rf ~'",
            &["bash -l -c : 'sudo rm -rf ~'", "rm -r -f : ~ @bash,sudo"],
        ),
        (
            "bash -e -c 'rm x'",
            &["bash -e -c : 'rm x'", "rm : x @bash"],
        ),
        (
            "bash -o pipefail -c 'rm x'",
            &["bash -o -c : pipefail 'rm x'", "rm : x @bash"],
        ),
        (
            "sudo bash -c 'rm -rf /'",
            &["bash -c : 'rm -rf /' @sudo", "rm -r -f : / @sudo,bash"],
        ),
        (
            "busybox sh -c 'rm -rf /'",
            &["sh -c : 'rm -rf /' @busybox", "rm -r -f : / @busybox,sh"],
        ),
        (
            "zsh -c 'bash -c \"rm -rf /\"'",
            &[
                "zsh -c : 'bash -c \"rm -rf /\"'",
                "bash -c : 'rm -rf /' @zsh",
                "rm -r -f : / @zsh,bash",
            ],
        ),
        (
            "eval \"rm -rf /\"",
            &["eval : 'rm -rf /' !dyn", "rm -r -f : / @eval"],
        ),
        (
            "trap 'rm -rf /' EXIT",
            &["trap : 'rm -rf /' EXIT", "rm -r -f : / @trap"],
        ),
        (
            "su -c 'rm -rf /' root",
            &["su -c : 'rm -rf /' root", "rm -r -f : / @su"],
        ),
        ("env -S 'rm -rf' /", &["rm -r -f : / @env"]),
        ("watch -n 1 rm -rf /", &["rm -r -f : / @watch"]),
        ("watch 'rm -rf /'", &["rm -r -f : / @watch"]),
        (
            "bash -c 'cat <<EOF\nrm -rf /\nEOF'",
            &["bash -c : 'cat <<EOF\nrm -rf /\nEOF'", "cat @bash <<EOF"],
        ),
        ("sh -c", &["sh -c"]),
        (
            "sudo su -c 'rm -rf /'",
            &["su -c : 'rm -rf /' @sudo", "rm -r -f : / @sudo,su"],
        ),
        (
            "sg wheel -c 'rm -rf /'",
            &["sg -c : wheel 'rm -rf /'", "rm -r -f : / @sg"],
        ),
        // A literal here-string is the script of a shell reading stdin.
        (
            "bash <<< 'rm -rf /'",
            &["bash <<<rm -rf /", "rm -r -f : / @bash"],
        ),
        (
            "sh <<<\"rm -rf /\"",
            &["sh <<<rm -rf /", "rm -r -f : / @sh"],
        ),
        ("bash -s <<< 'rm x'", &["bash -s <<<rm x", "rm : x @bash"]),
        ("bash <<< \"$CMD\"", &["bash <<<$CMD !dyn"]),
        ("bash <<< 'rm x' < f", &["bash <<<rm x <f !dyn"]),
        ("bash script.sh <<< 'rm x'", &["bash : script.sh <<<rm x"]),
        ("cat <<< 'rm -rf /'", &["cat <<<rm -rf /"]),
        // `at` and `batch` read the commands they run later from stdin.
        (
            "at now <<< 'rm -rf /'",
            &["at : now <<<rm -rf /", "rm -r -f : / @at"],
        ),
        (
            "echo 'rm -rf /' | at now",
            &["echo : 'rm -rf /'", "at : now !dyn"],
        ),
        ("batch < jobs.txt", &["batch <jobs.txt !dyn"]),
        // Listing, showing or removing jobs, or a script in a file: no
        // commands from stdin.
        ("at -l", &["at -l"]),
        ("atq; at -r 3", &["atq", "at -r : 3"]),
        ("at -f job.sh now", &["at -f : job.sh now"]),
        // Without `-c`, sg runs its command string through a shell.
        ("sg wheel 'rm -rf /'", &["sg : wheel 'rm -rf /' !dyn"]),
        (
            "script -qc 'rm -rf /' /dev/null",
            &[
                "script -q -c : 'rm -rf /' /dev/null",
                "rm -r -f : / @script",
            ],
        ),
    ]);
}

#[test]
fn wrappers() {
    check(&[
        ("xargs rm -rf < list", &["rm -r -f @xargs <list"]),
        ("xargs -0 -n 1 -I {} rm -rf {}", &["rm -r -f : {} @xargs"]),
        ("xargs -i rm {}", &["rm : {} @xargs"]),
        (
            "find / -exec rm -rf {} \\;",
            &["find -e -x -e -c -r -f : / rm {} ;", "rm -r -f : {} @find"],
        ),
        (
            "find . -name x -execdir chmod +x {} ';' -print",
            &[
                "find -n -a -m -e -e -x -e -c -d -i -r -p -r -i -n -t : . x chmod +x {} ;",
                "chmod : +x {} @find",
            ],
        ),
        (
            "find . -exec rm {} +",
            &["find -e -x -e -c : . rm {} +", "rm : {} @find"],
        ),
        (
            "find . -exec sh -c 'rm \"$1\"' _ {} \\;",
            &[
                "find -e -x -e -c -c : . sh 'rm \"$1\"' _ {} ;",
                "sh -c : 'rm \"$1\"' _ {} @find",
                "rm : $1 @find,sh",
            ],
        ),
        ("timeout -s KILL 10 rm -rf /", &["rm -r -f : / @timeout"]),
        (
            "stdbuf -oL nice -5 ionice -c 3 rm x",
            &["rm : x @stdbuf,nice,ionice"],
        ),
        ("exec -a foo rm x", &["rm : x @exec"]),
        ("command rm x", &["rm : x @command"]),
        ("command -v rm", &["command -v : rm"]),
        ("builtin cd /", &["cd : / @builtin"]),
        ("time -p rm x", &["rm : x @time"]),
        ("setsid chroot /mnt rm x", &["rm : x @setsid,chroot"]),
        ("busybox rm -rf /", &["rm -r -f : / @busybox"]),
        ("doas -u root rm x", &["rm : x @doas"]),
        ("sudo -l", &["sudo -l"]),
        ("sudo", &["sudo"]),
        ("strace -f -o log rm x", &["rm : x @strace"]),
        // Scheduling, placement and limits: options, then operands.
        ("chrt -i 0 rm -rf /", &["rm -r -f : / @chrt"]),
        ("chrt -p 10 1234", &["chrt -p : 10 1234"]),
        ("taskset -c 0-3 rm -rf /", &["rm -r -f : / @taskset"]),
        ("taskset -p 0x3 1234", &["taskset -p : 0x3 1234"]),
        ("numactl -C 0 --membind 1 rm x", &["rm : x @numactl"]),
        ("prlimit -n1024 --cpu=10 rm x", &["rm : x @prlimit"]),
        ("cpulimit -l 50 -- rm x", &["rm : x @cpulimit"]),
        ("trickle -d 100 rm x", &["rm : x @trickle"]),
        // Namespaces, privileges, sandboxes.
        ("unshare -r --wd /tmp rm -rf /", &["rm -r -f : / @unshare"]),
        // With no command it starts a shell, which reads what it runs.
        ("unshare -r", &["unshare -r !dyn"]),
        ("nsenter -t 1 -m -u rm -rf /", &["rm -r -f : / @nsenter"]),
        ("nsenter -m/proc/1/ns/mnt rm x", &["rm : x @nsenter"]),
        (
            "setpriv --reuid 1000 --init-groups rm x",
            &["rm : x @setpriv"],
        ),
        ("pkexec --user root rm -rf /", &["rm -r -f : / @pkexec"]),
        ("fakeroot -- rm x", &["rm : x @fakeroot"]),
        ("firejail --net=none rm x", &["rm : x @firejail"]),
        (
            "systemd-run --user -p MemoryMax=1G --unit x rm -rf ~",
            &["rm -r -f : ~ @systemd-run"],
        ),
        (
            "systemd-inhibit --why busy rm x",
            &["rm : x @systemd-inhibit"],
        ),
        // Proxies, clocks, displays, debuggers.
        ("proxychains4 -f cfg rm x", &["rm : x @proxychains"]),
        ("torsocks -u me rm x", &["rm : x @torsocks"]),
        ("faketime '2020-01-01' rm x", &["rm : x @faketime"]),
        ("xvfb-run -a -s '-screen 0' rm x", &["rm : x @xvfb-run"]),
        ("caffeinate -t 60 rm x", &["rm : x @caffeinate"]),
        ("valgrind --tool=memcheck rm x", &["rm : x @valgrind"]),
        ("catchsegv rm x", &["rm : x @catchsegv"]),
        ("npx --yes rimraf dist", &["rimraf : dist @npx"]),
        ("bunx -p rimraf rimraf /", &["rimraf : / @npx"]),
        ("dbus-run-session -- rm x", &["rm : x @dbus-run-session"]),
        // A lock around a command, or around a script.
        ("flock /tmp/l rm -rf /", &["rm -r -f : / @flock"]),
        ("flock -w 5 /tmp/l rm x", &["rm : x @flock"]),
        (
            "flock /tmp/l -c 'rm -rf /'",
            &["flock -c : /tmp/l 'rm -rf /'", "rm -r -f : / @flock"],
        ),
        ("flock 9", &["flock : 9"]),
        // ssh: the words after the destination are a remote script.
        ("ssh prod 'rm -rf /'", &["rm -r -f : / @ssh"]),
        (
            "ssh -p 22 -i key user@prod rm -rf /var",
            &["rm -r -f : /var @ssh"],
        ),
        ("ssh prod -p 22 -- rm -rf /", &["rm -r -f : / @ssh"]),
        (
            "ssh prod 'cd /srv && rm -rf data'",
            &["cd : /srv @ssh", "rm -r -f : data @ssh"],
        ),
        ("ssh prod", &["ssh : prod"]),
        // A container's command.
        (
            "docker exec -u root -w /srv web rm -rf /",
            &["rm -r -f : / @docker"],
        ),
        (
            "podman container exec -it db rm -rf /data",
            &["rm -r -f : /data @docker"],
        ),
        ("docker exec web", &["docker : exec web"]),
        ("docker ps -a", &["docker -a : ps"]),
        (
            "kubectl exec -n prod pod -c app -- rm -rf /data",
            &["rm -r -f : /data @kubectl"],
        ),
        ("kubectl exec pod ls", &["kubectl : exec pod ls"]),
        // GNU parallel: the command, then its arguments after `:::`.
        (
            "parallel -j 4 rm -rf ::: /",
            &["rm -r -f : ::: / @parallel"],
        ),
    ]);
}

#[test]
fn subcommand_launchers() {
    check(&[
        // Python environments.
        ("uv run pytest -x", &["pytest -x @uv"]),
        ("uv run --with rich -p 3.12 rm -rf /", &["rm -r -f : / @uv"]),
        ("uv --directory app run -- rm -rf /", &["rm -r -f : / @uv"]),
        ("uv tool run ruff check", &["ruff : check @uv"]),
        ("uvx --from httpie http GET x", &["http : GET x @uv"]),
        ("uv pip install x", &["uv : pip install x"]),
        ("poetry run rm -rf /", &["rm -r -f : / @poetry"]),
        ("poetry -C app run python x.py", &["python : x.py @poetry"]),
        ("poetry install", &["poetry : install"]),
        ("pipenv run --python 3.11 rm x", &["rm : x @pipenv"]),
        ("pdm run -p app rm x", &["rm : x @pdm"]),
        ("pdm run --list", &["pdm --list : run"]),
        ("hatch run test:cov", &["test:cov @hatch"]),
        ("hatch -e docs run rm -rf site", &["rm -r -f : site @hatch"]),
        ("conda run -n base rm -rf /", &["rm -r -f : / @conda"]),
        ("micromamba run -p /env rm x", &["rm : x @conda"]),
        ("conda install x", &["conda : install x"]),
        // JavaScript and Ruby package runners.
        ("pnpm dlx rimraf /", &["rimraf : / @pnpm"]),
        ("pnpm --filter web exec -- rm x", &["rm : x @pnpm"]),
        (
            "pnpm dlx -c 'rm -rf / | cat'",
            &["rm -r -f : / @pnpm", "cat @pnpm"],
        ),
        ("pnpm install", &["pnpm : install"]),
        ("yarn dlx -p cowsay cowsay hi", &["cowsay : hi @yarn"]),
        ("yarn exec rm x", &["rm : x @yarn"]),
        ("yarn add x", &["yarn : add x"]),
        ("npm exec -- rm -rf /", &["rm -r -f : / @npm"]),
        ("npm x --package=foo -- rm x", &["rm : x @npm"]),
        ("npm exec -c 'rm -rf /'", &["rm -r -f : / @npm"]),
        ("npm exec --call='rm x'", &["rm : x @npm"]),
        ("npx -c 'rm -rf /'", &["rm -r -f : / @npx"]),
        ("npm exec --help", &["npm --help : exec"]),
        ("npm install", &["npm : install"]),
        ("bundle exec rake db:drop", &["rake : db:drop @bundle"]),
        ("bundle install", &["bundle : install"]),
        // Tool managers and environments.
        ("mise exec node@22 -- rm -rf /", &["rm -r -f : / @mise"]),
        ("mise x -c 'rm -rf /'", &["rm -r -f : / @mise"]),
        ("mise x node@22", &["mise : x node@22"]),
        ("mise install", &["mise : install"]),
        ("direnv exec . rm -rf /", &["rm -r -f : / @direnv"]),
        ("direnv allow", &["direnv : allow"]),
        (
            "nix shell nixpkgs#hello --command rm -rf /",
            &["rm -r -f : / @nix"],
        ),
        ("nix develop -c rm x", &["rm : x @nix"]),
        (
            "nix --extra-experimental-features 'nix-command flakes' shell nixpkgs#jq -c rm x",
            &["rm : x @nix"],
        ),
        ("nix shell nixpkgs#hello", &["nix : shell nixpkgs#hello"]),
        ("nix build", &["nix : build"]),
        // tmux: the trailing words are a shell command.
        ("tmux new -d 'rm -rf /'", &["rm -r -f : / @tmux"]),
        (
            "tmux new-session -d -s work rm -rf /",
            &["rm -r -f : / @tmux"],
        ),
        ("tmux -L sock neww -n x 'rm x'", &["rm : x @tmux"]),
        ("tmux split-window -h -p 30 'rm x'", &["rm : x @tmux"]),
        (
            "tmux run-shell 'cd / && rm -rf *'",
            &["cd : / @tmux", "rm -r -f : * @tmux"],
        ),
        ("tmux -c 'rm -rf /'", &["rm -r -f : / @tmux"]),
        ("tmux run -C kill-server", &["tmux -C : run kill-server"]),
        ("tmux new -s work", &["tmux -s : new work"]),
        ("tmux ls", &["tmux : ls"]),
        ("tmux kill-server", &["tmux : kill-server"]),
        // Containers, after the launcher's own options.
        ("docker --context prod exec web rm x", &["rm : x @docker"]),
        ("kubectl -n prod exec pod -- rm x", &["rm : x @kubectl"]),
    ]);
}

#[test]
fn sessions_debuggers_and_sandboxes() {
    check(&[
        ("unbuffer -p rm -rf /", &["rm -r -f : / @unbuffer"]),
        (
            "sshpass -p hunter2 ssh host 'rm -rf /'",
            &["rm -r -f : / @sshpass,ssh"],
        ),
        ("sshpass -f pw.txt rm x", &["rm : x @sshpass"]),
        ("sshpass -e scp a b", &["scp : a b @sshpass"]),
        ("screen -dmS build rm -rf /", &["rm -r -f : / @screen"]),
        ("screen -S w -X quit", &["screen -S -X : w quit"]),
        ("screen -r work", &["screen -r : work"]),
        ("screen -ls", &["screen -l -s"]),
        ("gdb -ex r --args rm -rf /", &["rm -r -f : / @gdb"]),
        ("gdb ./prog", &["gdb : ./prog"]),
        ("lldb -- rm x", &["rm : x @lldb"]),
        ("xterm -hold -e rm -rf /", &["rm -r -f : / @xterm"]),
        ("alacritty --command rm x", &["rm : x @xterm"]),
        ("gnome-terminal -- rm x", &["rm : x @gnome-terminal"]),
        ("xterm -fa Mono", &["xterm -f -a : Mono"]),
        (
            "watchexec -e rs -- cargo test",
            &["cargo : test @watchexec"],
        ),
        (
            "watchexec -w src 'rm -rf dist && make'",
            &["rm -r -f : dist @watchexec", "make @watchexec"],
        ),
        ("watchexec -n -r rm x", &["rm : x @watchexec"]),
        ("watchexec --help", &["watchexec --help"]),
        (
            "bwrap --ro-bind / / --dev /dev --setenv HOME /tmp --chdir /tmp rm -rf /",
            &["rm -r -f : / @bwrap"],
        ),
        (
            "bwrap --overlay rw work / --unshare-all rm x",
            &["rm : x @bwrap"],
        ),
        (
            "proot -r rootfs -b /dev -w / rm -rf /",
            &["rm -r -f : / @proot"],
        ),
        // With no command proot starts a shell, which reads what it runs.
        ("proot -S rootfs", &["proot -S : rootfs !dyn"]),
        (
            "nix-shell -p python3 --run 'rm -rf /'",
            &["rm -r -f : / @nix-shell"],
        ),
        (
            "nix-shell --command 'rm x' shell.nix",
            &["rm : x @nix-shell"],
        ),
        ("nix-shell -p jq", &["nix-shell -p : jq"]),
        ("coreutils rm -rf /", &["rm -r -f : / @coreutils"]),
        (
            "coreutils --coreutils-prog=rm -rf /",
            &["rm -r -f : / @coreutils"],
        ),
        ("coreutils --list", &["coreutils --list"]),
    ]);
}

#[test]
fn fd_exec_and_windows_names() {
    check(&[
        // fd: the words after `-x`/`-X` up to `;` are a command.
        (
            "fd -e tmp -x rm {}",
            &["fd -e -x : tmp rm {}", "rm : {} @fd"],
        ),
        (
            "fdfind . / -X rm -rf",
            &["fdfind -X -r -f : . / rm", "rm -r -f @fd"],
        ),
        (
            "fd -Hx rm -rf {} \\; -E .git",
            &["fd -H -x -r -f -E : rm {} ; .git", "rm -r -f : {} @fd"],
        ),
        (
            "fd --exec-batch rm -rf",
            &["fd --exec-batch -r -f : rm", "rm -r -f @fd"],
        ),
        ("fd -x", &["fd -x"]),
        ("fd -ex foo", &["fd -e -x : foo"]),
        ("fd --exclude x foo", &["fd --exclude : x foo"]),
        // A Windows executable is its name without `.exe`, in any case.
        ("rm.exe -rf /", &["rm -r -f : /"]),
        ("RM.EXE -rf /", &["rm -r -f : /"]),
        ("C:/Windows/System32/rm.exe -rf /", &["rm -r -f : /"]),
        ("SUDO.EXE rm x", &["rm : x @sudo"]),
        (
            "bash.exe -c 'rm -rf /'",
            &["bash -c : 'rm -rf /'", "rm -r -f : / @bash"],
        ),
        ("setup.exe /S", &["setup : /S"]),
        (".exe", &[".exe"]),
        ("RM -rf /", &["RM -r -f : /"]),
        // Homebrew's GNU tools are the tools they name; other names that
        // start with `g` are their own.
        ("grm -rf /", &["rm -r -f : /"]),
        ("/opt/homebrew/bin/gshred -u x", &["shred -u : x"]),
        ("gxargs -0 grm -rf < list", &["rm -r -f @xargs <list"]),
        ("gtimeout 5 grm -rf /", &["rm -r -f : / @timeout"]),
        ("gsed -i s/a/b/ f", &["sed -i : s/a/b/ f"]),
        ("git rm -rf .", &["git -r -f : rm ."]),
        ("gh repo delete x", &["gh : repo delete x"]),
        ("g", &["g"]),
        ("grmx -rf /", &["grmx -r -f : /"]),
    ]);
}

#[test]
fn look_alikes_and_other_programs() {
    check(&[
        ("echo \"rm -rf /\"", &["echo : 'rm -rf /'"]),
        (
            "git commit -m \"rm -rf /\"",
            &["git -m : commit 'rm -rf /'"],
        ),
        ("man mkfs", &["man : mkfs"]),
        ("grep -r \"rm -rf\" .", &["grep -r : 'rm -rf' ."]),
        ("echo hi # rm -rf /", &["echo : hi"]),
        ("chmod 777 -R /", &["chmod -R : 777 /"]),
        (
            "dd if=/dev/zero of=/dev/sda",
            &["dd : if=/dev/zero of=/dev/sda"],
        ),
        (
            "git push origin main --force",
            &["git --force : push origin main"],
        ),
        ("git push origin +main", &["git : push origin +main"]),
        ("git reset  --hard", &["git --hard : reset"]),
        ("git clean -df", &["git -d -f : clean"]),
        ("psql -c \"DROP TABLE x\"", &["psql -c : 'DROP TABLE x'"]),
        ("head -n 5 f", &["head -n : 5 f"]),
    ]);
}

#[test]
fn redirections() {
    check(&[
        (": > .hookc/rules.tbl", &[": >.hookc/rules.tbl"]),
        ("exec 3>&1", &["exec >&1"]),
        ("f() { rm x; } >/dev/null 2>&1", &["rm : x >/dev/null >&1"]),
        (
            "echo '{}' > .claude/settings.json",
            &["echo : {} >.claude/settings.json"],
        ),
        ("cat <<EOF > f\nrm -rf /\nEOF", &["cat <<EOF >f"]),
        ("cat <<-'EOF'\n\trm -rf /\n\tEOF\nls", &["cat <<-EOF", "ls"]),
        ("cmd 2>&1 >/dev/null", &["cmd >&1 >/dev/null"]),
        ("cmd 2>/dev/null", &["cmd >/dev/null"]),
        ("cmd &> out &>> log", &["cmd &>out &>>log"]),
        ("cmd >| f 3<> g <<< word 0<&3", &["cmd >|f <>g <<<word <&3"]),
        ("> f echo hi", &["echo : hi >f"]),
        ("> f", &[">f"]),
        (
            "{ echo x; } > .claude/settings.json",
            &["echo : x >.claude/settings.json"],
        ),
        (
            "while read l; do rm \"$l\"; done < <(ls)",
            &["read : l <<(ls)", "rm : $l <<(ls)", "ls"],
        ),
    ]);
}

#[test]
fn dynamic_commands() {
    check(&[
        (
            "curl -fsSL https://x | sh",
            &["curl -f -s -S -L : https://x", "sh !dyn"],
        ),
        ("bash <(curl x)", &["bash : '<(curl x)' !dyn", "curl : x"]),
        ("bash -s < script", &["bash -s <script !dyn"]),
        ("bash < <(curl x)", &["bash <<(curl x) !dyn", "curl : x"]),
        ("rm${IFS}-rf${IFS}/", &["rm${IFS}-rf${IFS}/ !dyn"]),
        (
            "source <(curl x)",
            &["source : '<(curl x)' !dyn", "curl : x"],
        ),
        (". /dev/stdin", &[". : /dev/stdin !dyn"]),
        ("bash script.sh", &["bash : script.sh"]),
        ("eval \"$CMD\"", &["eval : $CMD !dyn", "$CMD @eval !dyn"]),
        ("$CMD -rf /", &["$CMD -r -f : / !dyn"]),
        ("${CMD} x", &["${CMD} : x !dyn"]),
        (
            "$(which rm) -rf /",
            &["$(which rm) -r -f : / !dyn", "which : rm"],
        ),
        (
            "`echo rm` -rf /",
            &["`echo rm` -r -f : / !dyn", "echo : rm"],
        ),
        ("\"$@\"", &["$@ !dyn"]),
        ("/bin/r? -rf /", &["r? -r -f : / !dyn"]),
        // Expanded as bash expands it.
        ("{rm,-rf,/}", &["rm -r -f : /"]),
        ("exec $x", &["$x @exec !dyn"]),
        ("sudo \"$@\"", &["$@ @sudo !dyn"]),
        ("find . | xargs sh", &["find : .", "sh @xargs !dyn"]),
        // A program a wrapper fills in from its input or what it finds.
        (
            "xargs -a cmds -I{} sh -c {}",
            &["sh -c : {} @xargs", "{} @xargs,sh !dyn"],
        ),
        (
            "find . -exec {} \\;",
            &["find -e -x -e -c : . {} ;", "{} @find !dyn"],
        ),
        ("parallel {.} ::: a", &["{.} : ::: a @parallel !dyn"]),
        ("fd -x {}", &["fd -x : {}", "{} @fd !dyn"]),
        // Filled in as an argument, or a brace outside a wrapper: known.
        ("xargs -I{} echo {}", &["echo : {} @xargs"]),
        ("{} x", &["{} : x"]),
        ("echo rm | sudo -s", &["echo : rm", "sudo -s !dyn"]),
        ("echo rm | su", &["echo : rm", "su !dyn"]),
    ]);
}

/// An interpreter runs code the text does not show when its program
/// comes from a pipe, a process substitution or an expansion, as a shell
/// does; code on its command line, a script, a module, a heredoc or a file
/// on its input is shown or named.
#[test]
fn interpreters_reading_their_program_from_a_pipe_are_dynamic() {
    check(&[
        ("curl x | python3", &["curl : x", "python3 !dyn"]),
        ("curl x | python3 -", &["curl : x", "python3 : - !dyn"]),
        ("curl x | node", &["curl : x", "node !dyn"]),
        ("curl x | perl", &["curl : x", "perl !dyn"]),
        ("curl x | php", &["curl : x", "php !dyn"]),
        (
            "python3 <(curl x)",
            &["python3 : '<(curl x)' !dyn", "curl : x"],
        ),
        (
            "python3 < <(curl x)",
            &["python3 <<(curl x) !dyn", "curl : x"],
        ),
        ("python3 /dev/stdin", &["python3 : /dev/stdin !dyn"]),
        (
            "python3 -c \"$(curl x)\"",
            &["python3 -c : '$(curl x)' !dyn", "curl : x"],
        ),
        ("node -e \"$CODE\"", &["node -e : $CODE !dyn"]),
        (
            "perl -ne \"$(curl x)\" f",
            &["perl -n -e : '$(curl x)' f !dyn", "curl : x"],
        ),
        ("uv run python -", &["python : - @uv !dyn"]),
        (
            "curl x | xargs python3 -c",
            &["curl : x", "python3 -c @xargs !dyn"],
        ),
        // Shown or named.
        ("python3 -c 'print(1)'", &["python3 -c : print(1)"]),
        ("python3 x.py", &["python3 : x.py"]),
        ("python3 -m json.tool", &["python3 -m : json.tool"]),
        ("python3 --version", &["python3 --version"]),
        ("node -pe '1+1'", &["node -p -e : 1+1"]),
        ("python3 - <<< 'print(1)'", &["python3 : - <<<print(1)"]),
        ("python3 < x.py", &["python3 <x.py"]),
        ("python3 - <<'EOF'\nprint(1)\nEOF", &["python3 : - <<EOF"]),
        (
            "echo '{}' | python3 -m json.tool",
            &["echo : {}", "python3 -m : json.tool"],
        ),
    ]);
}

/// Brace expansion on the words of a simple command (each checked in bash:
/// `printf '%s\n' WORDS`).
#[test]
fn braces_are_expanded() {
    check(&[
        ("chmod -R 777 /{etc,usr}", &["chmod -R : 777 /etc /usr"]),
        ("rm -rf /etc{,}", &["rm -r -f : /etc /etc"]),
        ("mv /{etc,tmp/e}", &["mv : /etc /tmp/e"]),
        ("dd if=x of={/dev/sda,y}", &["dd : if=x of=/dev/sda of=y"]),
        ("touch f{1..3}", &["touch : f1 f2 f3"]),
        ("sudo rm -rf {/,}", &["rm -r -f : / @sudo"]),
        // Not expansions: kept as written, nothing dynamic about them.
        (
            "find . -exec rm {} +",
            &["find -e -x -e -c : . rm {} +", "rm : {} @find"],
        ),
        ("echo '{a,b}' {x}", &["echo : {a,b} {x}"]),
        // Braces left as written: the words are known only at run time.
        ("rm -rf \"/\"{etc,usr}", &["rm -r -f : /{etc,usr} !dyn"]),
        (
            "rm -rf /{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}",
            &["rm -r -f : /{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b} !dyn"],
        ),
    ]);
}

#[test]
fn compound_commands() {
    check(&[
        ("if true; then rm -rf /; fi", &["true", "rm -r -f : /"]),
        (
            "if a; then b; elif c; then d; else e; fi",
            &["a", "b", "c", "d", "e"],
        ),
        ("for f in a b; do rm -rf \"$f\"; done", &["rm -r -f : $f"]),
        ("for f in $(ls); do rm $f; done", &["ls", "rm : $f"]),
        ("for ((i=0; i<3; i++)); do rm $i; done", &["rm : $i"]),
        ("while true; do rm x; done", &["true", "rm : x"]),
        ("until false\ndo\n  rm x\ndone", &["false", "rm : x"]),
        (
            "case $x in a|b) rm -rf /;; (*) echo;; esac",
            &["rm -r -f : /", "echo"],
        ),
        ("f() { rm -rf /; }; f", &["rm -r -f : /", "f"]),
        ("function f { rm -rf /; }", &["rm -r -f : /"]),
        ("function g() ( rm x )", &["rm : x"]),
        (":(){ :|:& };:", &[":", ":", ":"]),
        (
            "[[ -f x && $y < z ]] && rm x",
            &["[[ -f : x && $y < z", "rm : x"],
        ),
        ("(( x++ )) && rm x", &["(( : x++", "rm : x"]),
        ("time { rm x; }", &["rm : x"]),
        ("echo if then fi", &["echo : if then fi"]),
    ]);
}

#[test]
fn errors() {
    check(&[
        (
            "echo \"abc",
            &[
                "echo : abc",
                "!dyn !err: unterminated double quote at byte 5",
            ],
        ),
        (
            "echo 'abc",
            &[
                "echo : abc",
                "!dyn !err: unterminated single quote at byte 5",
            ],
        ),
        (
            "rm -rf \"/",
            &[
                "rm -r -f : /",
                "!dyn !err: unterminated double quote at byte 7",
            ],
        ),
        (
            "echo $(rm -rf /",
            &[
                "echo : '$(rm -rf /'",
                "rm -r -f : /",
                "!dyn !err: unterminated command substitution at byte 5",
            ],
        ),
        (
            "echo `rm",
            &[
                "echo : `rm",
                "rm",
                "!dyn !err: unterminated backquote at byte 5",
            ],
        ),
        (
            "rm -rf / )",
            &["rm -r -f : /", "!dyn !err: unexpected `)` at byte 9"],
        ),
        (
            ") rm -rf /",
            &["rm -r -f : /", "!dyn !err: unexpected `)` at byte 0"],
        ),
        ("}", &["!dyn !err: unexpected `}` at byte 0"]),
        ("fi", &["!dyn !err: unexpected `fi` at byte 0"]),
        (
            "ls; done",
            &["ls", "!dyn !err: unexpected `done` at byte 4"],
        ),
        (
            "true &&",
            &["true", "!dyn !err: expected a command after `&&` at byte 5"],
        ),
        (
            "ls |",
            &["ls", "!dyn !err: expected a command after `|` at byte 3"],
        ),
        (
            "if true; then rm x",
            &[
                "true",
                "rm : x",
                "!dyn !err: missing `fi` for `if` at byte 0",
            ],
        ),
        (
            "{ rm x",
            &["rm : x", "!dyn !err: missing `}` for `{` at byte 0"],
        ),
        (
            "bash -c 'rm \"x'",
            &[
                "bash -c : 'rm \"x'",
                "rm : x @bash",
                "!dyn !err: unterminated double quote in a nested script at byte 8",
            ],
        ),
        (
            "ls >",
            &["ls", "!dyn !err: expected a word after `>` at byte 3"],
        ),
        (";", &["!dyn !err: unexpected `;` at byte 0"]),
        ("{ }", &["!dyn !err: unexpected `}` at byte 2"]),
        (
            "if true; then fi; rm x",
            &["true", "rm : x", "!dyn !err: unexpected `fi` at byte 14"],
        ),
        (
            "! & rm x",
            &["rm : x", "!dyn !err: unexpected `&` at byte 2"],
        ),
        ("!", &[]),
        (
            "{ a; } rm -rf /",
            &["a", "rm -r -f : /", "!dyn !err: unexpected `rm` at byte 7"],
        ),
    ]);
}

#[test]
fn blank_and_comment_only_input_gives_no_commands() {
    for text in ["", "   ", "\n\n", "# rm -rf /", "  # a\n# b\n"] {
        assert_eq!(parse(text), View::default(), "{text:?}");
    }
}

#[test]
fn one_letter_flags_are_bits_and_other_flags_are_not() {
    let bits = |flags: &[&str]| {
        flags
            .iter()
            .map(|f| short_flag_bit(f).unwrap())
            .fold(0, |a, b| a | b)
    };
    let view = parse("rm -rRf9 --force -é -- -x; ls -a");
    assert_eq!(
        view.commands[0].short_flags,
        bits(&["-r", "-R", "-f", "-9"])
    );
    assert_eq!(view.commands[1].short_flags, bits(&["-a"]));
    // 62 distinct bits: a-z, A-Z, 0-9.
    let all: Vec<String> = ('a'..='z')
        .chain('A'..='Z')
        .chain('0'..='9')
        .map(|c| format!("-{c}"))
        .collect();
    let mut seen = 0u64;
    for flag in &all {
        let bit = short_flag_bit(flag).unwrap();
        assert_eq!(bit.count_ones(), 1);
        assert_eq!(seen & bit, 0, "{flag} shares a bit");
        seen |= bit;
    }
    for word in ["--force", "-é", "-rf", "r", "-", "--", "-.", ""] {
        assert_eq!(short_flag_bit(word), None, "{word:?}");
    }
    // Reused buffers compute the same bits as a fresh parse.
    let mut buffers = Buffers::default();
    let first = buffers.parse("rm -rf /");
    buffers.recycle(first);
    let again = buffers.parse("ls -la");
    assert_eq!(again.commands[0].short_flags, bits(&["-l", "-a"]));
}

#[test]
fn name_keeps_the_path_and_program_is_the_basename() {
    let view = parse("/bin/rm -rf /");
    let expected = Command {
        program: "rm".to_string(),
        name: "/bin/rm".to_string(),
        args: vec!["-rf".to_string(), "/".to_string()],
        flags: vec!["-r".to_string(), "-f".to_string()],
        operands: vec!["/".to_string()],
        short_flags: short_flag_bit("-r").unwrap() | short_flag_bit("-f").unwrap(),
        ..Command::default()
    };
    assert_eq!(
        view,
        View {
            commands: vec![expected]
        }
    );
}

#[test]
fn args_keep_every_word_after_the_wrappers() {
    let view = parse("sudo -u root git push -- --force x 2>&1");
    let expected = Command {
        program: "git".to_string(),
        name: "git".to_string(),
        args: ["push", "--", "--force", "x"].map(String::from).to_vec(),
        flags: Vec::new(),
        operands: ["push", "--force", "x"].map(String::from).to_vec(),
        redirects: vec![Redirect {
            op: ">&".to_string(),
            target: "1".to_string(),
        }],
        wrappers: vec!["sudo".to_string()],
        ..Command::default()
    };
    assert_eq!(
        view,
        View {
            commands: vec![expected]
        }
    );
}

#[test]
fn json_has_every_key() {
    let json = parse("FOO=1 sudo rm -rf / > log; echo \"x").to_json();
    let expected = json!([
        {
            "program": "rm", "name": "rm", "args": ["-rf", "/"], "flags": ["-r", "-f"],
            "operands": ["/"], "globs": [], "redirects": [{"op": ">", "target": "log"}],
            "assignments": ["FOO=1"], "wrappers": ["sudo"], "dynamic": false, "recursive": false, "error": null
        },
        {
            "program": "echo", "name": "echo", "args": ["x"], "flags": [], "operands": ["x"],
            "globs": [], "redirects": [], "assignments": [], "wrappers": [], "dynamic": false, "recursive": false, "error": null
        },
        {
            "program": "", "name": "", "args": [], "flags": [], "operands": [], "globs": [],
            "redirects": [],
            "assignments": [], "wrappers": [], "dynamic": true, "recursive": false,
            "error": "unterminated double quote at byte 32"
        }
    ]);
    assert_eq!(json, expected);
}

/// The programs of the commands of `text` that call, inside a function's
/// body, that function.
fn recursive(text: &str) -> Vec<String> {
    parse(text)
        .commands
        .iter()
        .filter(|c| c.recursive)
        .map(|c| c.program.clone())
        .collect()
}

#[test]
fn a_function_that_calls_itself_is_seen_under_any_name() {
    assert_eq!(recursive(":(){ :|:& };:"), [":", ":"]);
    assert_eq!(recursive("bomb(){ bomb|bomb& };bomb"), ["bomb", "bomb"]);
    assert_eq!(recursive("function g { g | g & }; g"), ["g", "g"]);
    assert_eq!(recursive("function g() { /bin/true; \\g & }; g"), ["g"]);
    assert_eq!(recursive("sh -c 'f(){ f|f& };f'"), ["f", "f"]);
    assert_eq!(
        recursive("walk(){ for d in \"$1\"/*; do [ -d \"$d\" ] && walk \"$d\"; done; }; walk ."),
        ["walk"]
    );
    // Calls outside the body, and other programs inside it, are not.
    assert!(recursive("f() { ls | grep x; }; f").is_empty());
    assert!(recursive("g() { f; }; f() { echo; }; g").is_empty());
    // The name is released for the next parse: no allocation held.
    let mut buffers = Buffers::default();
    for _ in 0..3 {
        let view = buffers.parse("bomb(){ bomb|bomb& };bomb");
        assert_eq!(view.commands.iter().filter(|c| c.recursive).count(), 2);
        buffers.recycle(view);
    }
}

#[test]
fn functions_that_call_each_other_are_recursive() {
    assert_eq!(
        recursive("a(){ b|b& }; b(){ a|a& }; a"),
        ["b", "b", "a", "a"]
    );
    assert_eq!(
        recursive("a(){ b& b; }; b(){ a& a; }; a"),
        ["b", "b", "a", "a"]
    );
    assert_eq!(
        recursive("x(){ y; }; y(){ z|z& }; z(){ x; }; x"),
        ["y", "z", "z", "x"]
    );
    // Defined later, or in a group: the same.
    assert_eq!(recursive("{ p(){ q; }; }; q(){ p; }"), ["q", "p"]);
    // A chain is no cycle.
    assert!(recursive("a(){ b; }; b(){ echo; }; a").is_empty());
    // `c` calls into a cycle that never calls it back.
    let view = parse("c(){ a; }; a(){ b; }; b(){ a; }");
    let marked: Vec<_> = view
        .commands
        .iter()
        .map(|c| (c.program.as_str(), c.recursive))
        .collect();
    assert_eq!(marked, [("a", false), ("b", true), ("a", true)]);
    // A function of a substitution is its own: `b` of the text is not it.
    assert!(recursive("a(){ b; }; echo $(b(){ a; }; b)").is_empty());
    // Within a substitution and a nested script, cycles are seen.
    assert_eq!(recursive("echo $(a(){ b; }; b(){ a; })"), ["b", "a"]);
    assert_eq!(recursive("bash -c 'a(){ b; }; b(){ a; }'"), ["b", "a"]);
    // Reused buffers give the same view.
    let mut buffers = Buffers::default();
    for _ in 0..3 {
        let view = buffers.parse("a(){ b|b& }; b(){ a|a& }; a");
        assert_eq!(view.commands.iter().filter(|c| c.recursive).count(), 4);
        buffers.recycle(view);
    }
}

#[test]
fn past_the_cap_functions_are_checked_for_self_calls_only() {
    // 64 functions first: the cycle after them is not followed, the
    // self-call still is, and the parse returns.
    let mut text: String = (0..64)
        .map(|i| format!("f{i}(){{ f{}; }}; ", i + 1))
        .collect();
    text.push_str("a(){ b; }; b(){ a; }; s(){ s; }; f0");
    assert_eq!(recursive(&text), ["s"]);
    // A cycle through 2,000 functions: only its first 64 are followed.
    let mut text: String = (0..2000)
        .map(|i| format!("f{i}(){{ f{}|f{}& }}; ", (i + 1) % 2000, (i + 1) % 2000))
        .collect();
    text.push_str("f0");
    assert!(recursive(&text).is_empty());
}

#[test]
fn nesting_deeper_than_the_bound_is_an_error() {
    let within = format!("{}rm x{}", "$(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    let view = parse(&within);
    assert!(
        view.commands.iter().all(|command| command.error.is_none()),
        "{view:?}"
    );
    assert!(view.commands.iter().any(|command| command.program == "rm"));

    let beyond = format!(
        "{}rm x{}",
        "$(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    let errors: Vec<Option<String>> = parse(&beyond)
        .commands
        .into_iter()
        .map(|command| command.error)
        .filter(Option::is_some)
        .collect();
    assert_eq!(
        errors,
        vec![Some(format!(
            "nesting deeper than {MAX_DEPTH} at byte {}",
            2 * MAX_DEPTH
        ))]
    );

    let evals = format!("{}rm x", "eval ".repeat(MAX_DEPTH + 2));
    let last = parse(&evals)
        .commands
        .pop()
        .and_then(|command| command.error);
    assert!(last.is_some_and(|error| error.starts_with("nesting deeper than")));
}

#[test]
fn pathological_inputs_return() {
    // A quarter of a mebibyte keeps the debug test suite quick; the fuzz
    // target and the evasion tests run a whole one.
    const SIZE: usize = 1 << 18;
    let units = [
        "(",
        ")",
        "$(",
        "$((",
        "((",
        "${",
        "`",
        "\\`",
        "\"",
        "'",
        "\\",
        "$'",
        "{ ",
        "} ",
        "if ",
        "fi ",
        "case ",
        "for x in ",
        "<<EOF\n",
        "<<A ",
        "a|",
        "; ",
        "&& ",
        "f() ",
        "function f ",
        "[[ ",
        "x=(",
        "bash -c ",
        "find -exec ",
        "env -S ",
        "sudo ",
        "eval ",
        "\"$(",
        "<(",
        "a\\\n",
        "#",
        "$((a) ",
        "((a) ",
        "\n",
        "EOF\n",
    ];
    for unit in units {
        let text = unit.repeat(SIZE / unit.len());
        let view = parse(&text);
        // Returning is the test; the view of a non-blank input is non-empty
        // unless it is all comment or blank.
        assert!(
            !view.commands.is_empty() || text.trim().is_empty() || unit == "#",
            "{unit:?}"
        );
    }
    let mixed: String = units.concat().repeat(SIZE / units.concat().len());
    let _ = parse(&mixed).to_json();
}

#[test]
fn globs_are_the_words_the_shell_expands_as_patterns() {
    let globs = |text: &str| -> Vec<Vec<String>> {
        parse(text)
            .commands
            .iter()
            .map(|c| c.globs.clone())
            .collect()
    };
    let cases: &[(&str, &[&[&str]])] = &[
        ("rm -rf .h*", &[&[".h*"]]),
        ("cp .[a-z]* /tmp x?y", &[&[".[a-z]*", "x?y"]]),
        // Quoted, escaped or in a variable: not expanded as a pattern.
        ("sed 's/.*=//' config.txt", &[&[]]),
        ("yq \".items[0].name\" x.yaml", &[&[]]),
        ("echo \\*", &[&[]]),
        ("rm -rf $D", &[&[]]),
        // Partly quoted: the unquoted part is still a pattern.
        ("ls '.h'*", &[&[".h*"]]),
        // Each command its own; the words of a wrapper's command only.
        ("sudo rm -rf /e* && ls *.rs", &[&["/e*"], &["*.rs"]]),
        ("bash -c 'rm .c*'", &[&[], &[".c*"]]),
    ];
    for (text, want) in cases {
        let want: Vec<Vec<String>> = want
            .iter()
            .map(|words| words.iter().map(|w| w.to_string()).collect())
            .collect();
        assert_eq!(globs(text), want, "{text}");
    }
}
