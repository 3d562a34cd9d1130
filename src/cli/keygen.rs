//! `hookc keygen`: a key pair for signing tables.

use super::{print_stderr, Failure, Status};
use crate::output::{create_new, Access};
use crate::table::{PublicKey, SecretKey};
use std::path::{Path, PathBuf};

/// Arguments of `hookc keygen`.
#[derive(Debug, clap::Args)]
pub(crate) struct KeygenArgs {
    /// Where to write the secret key; the public key goes to the same path
    /// with `.pub` added
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

/// Writes a new key pair; refuses to replace either file.
pub(crate) fn run(args: KeygenArgs) -> Result<Status, Failure> {
    let secret_path = args.output;
    let public_path = public_path(&secret_path);
    for path in [&secret_path, &public_path] {
        if std::fs::symlink_metadata(path).is_ok() {
            return Err(Failure::new(format!(
                "`{}` already exists: not overwritten",
                path.display()
            ))
            .help("choose another name, or remove the old key first (tables signed with it will no longer verify)"));
        }
    }
    let mut seed = [0u8; 32];
    getrandom::getrandom(&mut seed)
        .map_err(|e| Failure::new(format!("cannot get random bytes for the key: {e}")))?;
    let secret = SecretKey::from_seed(&seed);
    seed.fill(0);
    let public = secret.public_key();
    create_new(&secret_path, secret.to_pem().as_bytes(), Access::Private)
        .map_err(|e| Failure::cannot_write(&secret_path, &e))?;
    if let Err(e) = create_new(&public_path, public.to_pem().as_bytes(), Access::Shared) {
        // Half a pair is no pair: take the secret key back.
        let _ = std::fs::remove_file(&secret_path);
        return Err(Failure::cannot_write(&public_path, &e));
    }
    print_stderr(&summary(&secret_path, &public_path, &public));
    Ok(Status::Ok)
}

/// `FILE.pub`.
pub(crate) fn public_path(secret: &Path) -> PathBuf {
    let mut name = secret.as_os_str().to_owned();
    name.push(".pub");
    PathBuf::from(name)
}

fn summary(secret: &Path, public: &Path, key: &PublicKey) -> String {
    format!(
        "wrote the secret key to `{}` (readable by you alone: keep it out of the project and of the agent's reach)\n\
         wrote the public key to `{}` (key {})\n\
         sign tables with `hookc compile RULES -o TABLE --sign {}`; verify them with `hookc claude --verify-key {}`\n",
        secret.display(),
        public.display(),
        key.id(),
        secret.display(),
        public.display(),
    )
}

/// Reads a secret key file (`--sign`).
pub(crate) fn read_secret_key(path: &Path) -> Result<SecretKey, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::cannot_read(path, &e))?;
    SecretKey::from_pem(&text).map_err(|e| {
        Failure::new(format!("cannot use `{}` to sign: {e}", path.display()))
            .help("`hookc keygen -o FILE` writes a key pair; sign with FILE, verify with FILE.pub")
    })
}

/// Reads a public key file (`--verify-key`); the error is one message.
pub(crate) fn read_public_key(path: &Path) -> Result<PublicKey, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "cannot read the verify key `{}`: {}",
            path.display(),
            super::io_reason(&e)
        )
    })?;
    PublicKey::from_pem(&text)
        .map_err(|e| format!("cannot use `{}` as a verify key: {e}", path.display()))
}
