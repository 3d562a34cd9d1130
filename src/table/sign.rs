//! Signed tables: an ed25519 signature over every byte a loader trusts.
//!
//! The CRC-32 in a table's header catches accidents (a truncated copy, a
//! flipped bit), not tampering: anyone who can change a table can fix up its
//! checksum, and a changed table can drop a deny without a trace. A signed
//! table carries a signature block after its last section:
//!
//! ```text
//! offset  size  field
//!      0     8  magic  "hookcsig"
//!      8     4  algorithm (u32 LE): 1 = ed25519
//!     12    32  the signer's public key
//!     44    64  the ed25519 signature (RFC 8032) of every byte of the
//!               table before it, and of bytes 0..44 of this block
//! ```
//!
//! The signature covers the header (label, version, lengths, checksum), the
//! program, every DFA section and the block's own magic, algorithm and key:
//! no byte the loader reads is outside it. The CRC covers what it always
//! did, the bytes between the header and the block, so signing does not
//! change them and a signed table without its block is the unsigned table.
//!
//! [`Table::from_bytes`](super::Table::from_bytes) accepts a signed table
//! without checking the signature (it checks the block's form).
//! [`Table::from_bytes_verified`](super::Table::from_bytes_verified) checks
//! it against the key the host trusts, before anything else is decoded, and
//! refuses an unsigned table, a table signed by another key, and any table
//! whose bytes changed after signing.
//!
//! Keys are PEM files, as OpenSSL writes them (`openssl genpkey -algorithm
//! ed25519`, `openssl pkey -pubout`): a secret key is PKCS#8
//! (`-----BEGIN PRIVATE KEY-----`), a public key SPKI
//! (`-----BEGIN PUBLIC KEY-----`). `hookc keygen` writes a pair.

use super::{LoadError, LoadErrorKind};
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};
use std::fmt;

/// The first bytes of a signature block.
pub const SIGNATURE_MAGIC: &[u8; 8] = b"hookcsig";

/// The algorithm number of ed25519 signatures.
const ED25519: u32 = 1;

/// Size of a signature block in bytes.
pub const SIGNATURE_BLOCK_LEN: usize = 8 + 4 + 32 + 64;

/// Where the signature starts in the block: everything before it is signed.
const SIGNED_PART: usize = SIGNATURE_BLOCK_LEN - 64;

/// A public key that tables are verified against.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey(VerifyingKey);

/// A secret key that signs tables. Its bytes are wiped from memory when it
/// is dropped.
#[derive(Clone)]
pub struct SecretKey(SigningKey);

/// A key file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// A secret key was given where a public key is needed.
    #[error("this is a secret key, not a public key: give the `.pub` file")]
    SecretForPublic,
    /// A public key was given where a secret key is needed.
    #[error("this is a public key, not a secret key")]
    PublicForSecret,
    /// The text is not a PEM ed25519 key of the expected kind.
    #[error("not a PEM ed25519 {expected} key: {reason}")]
    Invalid {
        /// `public` or `secret`.
        expected: &'static str,
        /// What the decoder said.
        reason: String,
    },
}

impl PublicKey {
    /// Reads an SPKI PEM public key (`-----BEGIN PUBLIC KEY-----`).
    ///
    /// # Errors
    ///
    /// [`KeyError`] when the text is anything else (a secret key included).
    pub fn from_pem(text: &str) -> Result<PublicKey, KeyError> {
        if text.contains("PRIVATE KEY-----") {
            return Err(KeyError::SecretForPublic);
        }
        VerifyingKey::from_public_key_pem(text.trim())
            .map(PublicKey)
            .map_err(|e| KeyError::Invalid {
                expected: "public",
                reason: e.to_string(),
            })
    }

    /// The key as SPKI PEM text, ending in a newline.
    pub fn to_pem(&self) -> String {
        // Encoding 32 bytes cannot fail; an empty text would not load.
        self.0
            .to_public_key_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
            .unwrap_or_default()
    }

    /// The key from its 32 raw bytes.
    ///
    /// # Errors
    ///
    /// [`KeyError::Invalid`] when the bytes are not a point of the curve.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<PublicKey, KeyError> {
        VerifyingKey::from_bytes(bytes)
            .map(PublicKey)
            .map_err(|e| KeyError::Invalid {
                expected: "public",
                reason: e.to_string(),
            })
    }

    /// The key's 32 raw bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    /// A short name for the key in messages: the first 8 bytes of the
    /// SHA-256 of its raw bytes, in hex.
    pub fn id(&self) -> String {
        let digest = Sha256::digest(self.0.as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.id())
    }
}

impl SecretKey {
    /// The key derived from a 32-byte seed (RFC 8032's secret key).
    pub fn from_seed(seed: &[u8; 32]) -> SecretKey {
        SecretKey(SigningKey::from_bytes(seed))
    }

    /// Reads a PKCS#8 PEM secret key (`-----BEGIN PRIVATE KEY-----`).
    ///
    /// # Errors
    ///
    /// [`KeyError`] when the text is anything else (a public key included).
    pub fn from_pem(text: &str) -> Result<SecretKey, KeyError> {
        if text.contains("PUBLIC KEY-----") {
            return Err(KeyError::PublicForSecret);
        }
        SigningKey::from_pkcs8_pem(text.trim())
            .map(SecretKey)
            .map_err(|e| KeyError::Invalid {
                expected: "secret",
                reason: e.to_string(),
            })
    }

    /// The key as PKCS#8 PEM text, ending in a newline; the text is wiped
    /// from memory when dropped.
    pub fn to_pem(&self) -> ed25519_dalek::pkcs8::spki::der::zeroize::Zeroizing<String> {
        self.0
            .to_pkcs8_pem(ed25519_dalek::pkcs8::spki::der::pem::LineEnding::LF)
            .unwrap_or_default()
    }

    /// The public half.
    pub fn public_key(&self) -> PublicKey {
        PublicKey(self.0.verifying_key())
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretKey(public {})", self.public_key().id())
    }
}

/// `unsigned` (a table without a signature block) with a block signed by
/// `key` appended.
pub(super) fn sign(unsigned: &[u8], key: &SecretKey) -> Vec<u8> {
    let mut out = Vec::with_capacity(unsigned.len() + SIGNATURE_BLOCK_LEN);
    out.extend_from_slice(unsigned);
    out.extend_from_slice(SIGNATURE_MAGIC);
    out.extend_from_slice(&ED25519.to_le_bytes());
    out.extend_from_slice(key.0.verifying_key().as_bytes());
    let signature = key.0.sign(&out);
    out.extend_from_slice(&signature.to_bytes());
    out
}

/// The signer's key when `block` is a well-formed signature block.
pub(super) fn parse_block(block: &[u8]) -> Result<PublicKey, LoadError> {
    let malformed = |what: &str| LoadError::invalid(format!("malformed signature block: {what}"));
    if block.len() != SIGNATURE_BLOCK_LEN {
        return Err(malformed("wrong length"));
    }
    if block.get(..8) != Some(&SIGNATURE_MAGIC[..]) {
        return Err(malformed("no magic"));
    }
    // The block is read here alone, so the format's reader need not be
    // shared both ways.
    let algorithm = block
        .get(8..12)
        .and_then(|w| <[u8; 4]>::try_from(w).ok())
        .map_or(0, u32::from_le_bytes);
    if algorithm != ED25519 {
        return Err(malformed(&format!("unknown algorithm {algorithm}")));
    }
    let key: [u8; 32] = block
        .get(12..SIGNED_PART)
        .and_then(|k| k.try_into().ok())
        .ok_or_else(|| malformed("no key"))?;
    PublicKey::from_bytes(&key).map_err(|_| malformed("the key is not an ed25519 key"))
}

/// Checks the signature block at the end of `bytes` against `key`, before
/// anything else of the table is read. `Ok(false)`: there is no block.
pub(super) fn verify(bytes: &[u8], key: &PublicKey) -> Result<bool, LoadError> {
    let Some(at) = bytes
        .len()
        .checked_sub(SIGNATURE_BLOCK_LEN)
        .filter(|&at| at >= super::HEADER_LEN)
    else {
        return Ok(false);
    };
    let block = bytes.get(at..).unwrap_or(&[]);
    if block.get(..8) != Some(&SIGNATURE_MAGIC[..]) {
        return Ok(false);
    }
    let signer = parse_block(block)?;
    if signer != *key {
        return Err(LoadError::new(LoadErrorKind::SignedByAnotherKey {
            expected: key.id(),
            found: signer.id(),
        }));
    }
    let signed = bytes.get(..at + SIGNED_PART).unwrap_or(&[]);
    let signature: [u8; 64] = block
        .get(SIGNED_PART..)
        .and_then(|s| s.try_into().ok())
        .unwrap_or([0; 64]);
    let signature = ed25519_dalek::Signature::from_bytes(&signature);
    key.0
        .verify_strict(signed, &signature)
        .map(|()| true)
        .map_err(|_| LoadError::new(LoadErrorKind::BadSignature { key: key.id() }))
}
