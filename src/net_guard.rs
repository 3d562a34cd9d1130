//! Which webhook destinations are refused: the SSRF guard.
//!
//! A webhook posts an event summary to a URL written in the rules. Rules are
//! code someone reviews, but a URL that reaches the machine the rules run on
//! (loopback), its network (private, link-local, shared CGN space), or a
//! cloud metadata service turns a harmless-looking rule into a way to read
//! or poke at internal services. This module decides, without any network
//! access, whether a URL, a host or an IP address may be a webhook
//! destination:
//!
//! - [`check_url`] at lint time (the `insecure-webhook` lint): `https` only,
//!   no user-info, and a host that [`check_host`] accepts;
//! - [`check_host`]: refuses names of the local machine and of metadata
//!   services (`localhost`, `*.localhost`, `host.docker.internal`,
//!   `metadata.google.internal`, `metadata.aws.internal`, `instance-data`,
//!   …: [`REFUSED_NAMES`], in any case, with or without a trailing dot) and
//!   every IP address [`check_ip`]
//!   refuses, including the numeric forms a URL parser decodes to an IPv4
//!   address (`2130706433`, `127.1`, `0x7f.0.0.1`, `0177.0.0.1`);
//! - [`check_ip`] for the sender to run on every address the host resolves
//!   to, so that a public name that resolves to an internal address is
//!   refused too: the webhook pool ([`crate::effects::webhook`]) resolves
//!   the host itself, checks every address and connects only to the
//!   addresses it checked (a DNS answer that changes between the check and
//!   the connection cannot slip through);
//! - [`check_header`] on the headers a rule adds: none that carry
//!   credentials (`Authorization`, `Cookie`), spoof where the request comes
//!   from (`Forwarded`, `X-Forwarded-*`, `X-Real-IP`), pick the virtual
//!   host (`Host`) or change how the request is framed (`Connection`,
//!   `Transfer-Encoding`, …), and no line breaks that would smuggle more.
//!
//! Refused IPv4 ranges: `0.0.0.0/8` (this network, with the unspecified
//! `0.0.0.0`), `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (private),
//! `100.64.0.0/10` (shared address space, carrier-grade NAT),
//! `127.0.0.0/8` (loopback), `169.254.0.0/16` (link-local, with the
//! metadata address `169.254.169.254`), the metadata addresses
//! `168.63.129.16` (Azure's platform endpoint), `100.100.100.200` (Alibaba
//! Cloud) and `192.0.0.192` (Oracle Cloud), `192.0.0.0/24` (IETF protocol
//! assignments),
//! `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24` (documentation),
//! `198.18.0.0/15` (benchmarking), `224.0.0.0/4` (multicast),
//! `240.0.0.0/4` (reserved) and `255.255.255.255` (broadcast).
//!
//! Refused IPv6 ranges: `::` (unspecified), `::1` (loopback), `fc00::/7`
//! (unique local, with the metadata addresses `fd00:ec2::254` of AWS and
//! `fd20:ce::254` of Google Cloud), `fe80::/10`
//! (link-local), `fec0::/10` (site-local), `ff00::/8` (multicast),
//! `2001:db8::/32` and `3fff::/20` (documentation), `2001:2::/48`
//! (benchmarking), `100::/64` (discard) and `64:ff9b:1::/48` (local-use
//! NAT64); and addresses that embed a refused IPv4 address: IPv4-mapped
//! `::ffff:0:0/96`, IPv4-compatible `::/96`, NAT64 `64:ff9b::/96` and 6to4
//! `2002::/16`.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is refused: the special-purpose range it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Range {
    /// `0.0.0.0`, `::`.
    Unspecified,
    /// `0.0.0.0/8` ("this network").
    ThisNetwork,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, `fec0::/10`.
    Private,
    /// `100.64.0.0/10`: shared address space (carrier-grade NAT).
    SharedAddressSpace,
    /// `169.254.0.0/16`, `fe80::/10`.
    LinkLocal,
    /// A cloud metadata service: `169.254.169.254` (AWS, Google Cloud,
    /// Azure, Oracle Cloud, DigitalOcean, …), `168.63.129.16` (Azure),
    /// `100.100.100.200` (Alibaba Cloud), `192.0.0.192` (Oracle Cloud),
    /// `fd00:ec2::254` (AWS), `fd20:ce::254` (Google Cloud).
    Metadata,
    /// `192.0.0.0/24`: IETF protocol assignments.
    ProtocolAssignments,
    /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`,
    /// `3fff::/20`.
    Documentation,
    /// `198.18.0.0/15`, `2001:2::/48`.
    Benchmarking,
    /// `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// `240.0.0.0/4`, `100::/64` (discard), `64:ff9b:1::/48` (local NAT64).
    Reserved,
    /// `fc00::/7`: unique local addresses.
    UniqueLocal,
}

impl Range {
    /// What the range is, as a noun phrase: `a loopback address`.
    pub fn describe(self) -> &'static str {
        match self {
            Range::Unspecified => "the unspecified address",
            Range::ThisNetwork => "a \"this network\" address",
            Range::Loopback => "a loopback address",
            Range::Private => "a private address",
            Range::SharedAddressSpace => "a shared (carrier-grade NAT) address",
            Range::LinkLocal => "a link-local address",
            Range::Metadata => "a cloud metadata address",
            Range::ProtocolAssignments => "an IETF protocol assignment address",
            Range::Documentation => "a documentation address",
            Range::Benchmarking => "a benchmarking address",
            Range::Multicast => "a multicast address",
            Range::Broadcast => "the broadcast address",
            Range::Reserved => "a reserved address",
            Range::UniqueLocal => "a unique local address",
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// How an IPv6 address embeds an IPv4 address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Embedding {
    /// `::ffff:a.b.c.d`.
    Mapped,
    /// `::a.b.c.d` (deprecated IPv4-compatible form).
    Compatible,
    /// `64:ff9b::a.b.c.d` (NAT64 well-known prefix).
    Nat64,
    /// `2002:AABB:CCDD::/48` (6to4).
    SixToFour,
}

impl Embedding {
    fn describe(self) -> &'static str {
        match self {
            Embedding::Mapped => "IPv4-mapped",
            Embedding::Compatible => "IPv4-compatible",
            Embedding::Nat64 => "NAT64",
            Embedding::SixToFour => "6to4",
        }
    }
}

/// A refused address: the range it is in, and the IPv4 address it embeds
/// when the range is that address's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Refused {
    /// The range.
    pub range: Range,
    /// For an IPv6 address that embeds an IPv4 address: how, and which.
    pub embedded: Option<(Embedding, Ipv4Addr)>,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.embedded {
            None => f.write_str(self.range.describe()),
            Some((how, v4)) => write!(
                f,
                "an {} form of {v4}, {}",
                how.describe(),
                self.range.describe()
            ),
        }
    }
}

const V4_RANGES: &[(u32, u8, Range)] = &[
    // Most specific first.
    (0x0000_0000, 32, Range::Unspecified),
    (0xFFFF_FFFF, 32, Range::Broadcast),
    (0xA9FE_A9FE, 32, Range::Metadata), // 169.254.169.254: AWS, GCP, Azure, Oracle, DigitalOcean, …
    (0xA83F_8110, 32, Range::Metadata), // 168.63.129.16: Azure's platform endpoint
    (0x6464_64C8, 32, Range::Metadata), // 100.100.100.200: Alibaba Cloud
    (0xC000_00C0, 32, Range::Metadata), // 192.0.0.192: Oracle Cloud (classic)
    (0x0000_0000, 8, Range::ThisNetwork),
    (0x0A00_0000, 8, Range::Private),
    (0x6440_0000, 10, Range::SharedAddressSpace), // 100.64.0.0/10
    (0x7F00_0000, 8, Range::Loopback),
    (0xA9FE_0000, 16, Range::LinkLocal), // 169.254.0.0/16
    (0xAC10_0000, 12, Range::Private),   // 172.16.0.0/12
    (0xC000_0000, 24, Range::ProtocolAssignments), // 192.0.0.0/24
    (0xC000_0200, 24, Range::Documentation), // 192.0.2.0/24
    (0xC0A8_0000, 16, Range::Private),   // 192.168.0.0/16
    (0xC612_0000, 15, Range::Benchmarking), // 198.18.0.0/15
    (0xC633_6400, 24, Range::Documentation), // 198.51.100.0/24
    (0xCB00_7100, 24, Range::Documentation), // 203.0.113.0/24
    (0xE000_0000, 4, Range::Multicast),  // 224.0.0.0/4
    (0xF000_0000, 4, Range::Reserved),   // 240.0.0.0/4
];

const V6_RANGES: &[(u128, u8, Range)] = &[
    (0, 128, Range::Unspecified),
    (1, 128, Range::Loopback),
    (
        0xfd00_0ec2_0000_0000_0000_0000_0000_0254,
        128,
        Range::Metadata,
    ), // AWS
    (
        0xfd20_00ce_0000_0000_0000_0000_0000_0254,
        128,
        Range::Metadata,
    ), // Google Cloud
    (
        0x0100_0000_0000_0000_0000_0000_0000_0000,
        64,
        Range::Reserved,
    ), // 100::/64
    (
        0x0064_ff9b_0001_0000_0000_0000_0000_0000,
        48,
        Range::Reserved,
    ), // 64:ff9b:1::/48
    (
        0x2001_0002_0000_0000_0000_0000_0000_0000,
        48,
        Range::Benchmarking,
    ),
    (
        0x2001_0db8_0000_0000_0000_0000_0000_0000,
        32,
        Range::Documentation,
    ),
    (
        0x3fff_0000_0000_0000_0000_0000_0000_0000,
        20,
        Range::Documentation,
    ),
    (
        0xfc00_0000_0000_0000_0000_0000_0000_0000,
        7,
        Range::UniqueLocal,
    ),
    (
        0xfe80_0000_0000_0000_0000_0000_0000_0000,
        10,
        Range::LinkLocal,
    ),
    (
        0xfec0_0000_0000_0000_0000_0000_0000_0000,
        10,
        Range::Private,
    ),
    (
        0xff00_0000_0000_0000_0000_0000_0000_0000,
        8,
        Range::Multicast,
    ),
];

fn v4_range(ip: Ipv4Addr) -> Option<Range> {
    let bits = u32::from(ip);
    V4_RANGES.iter().find_map(|&(net, len, range)| {
        let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
        (bits & mask == net & mask).then_some(range)
    })
}

fn v6_range(ip: Ipv6Addr) -> Option<Range> {
    let bits = u128::from(ip);
    V6_RANGES.iter().find_map(|&(net, len, range)| {
        let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
        (bits & mask == net & mask).then_some(range)
    })
}

/// The IPv4 address an IPv6 address embeds, and how.
fn embedded_v4(ip: Ipv6Addr) -> Option<(Embedding, Ipv4Addr)> {
    let bits = u128::from(ip);
    let low = Ipv4Addr::from((bits & 0xFFFF_FFFF) as u32);
    if bits >> 32 == 0xFFFF {
        return Some((Embedding::Mapped, low));
    }
    if bits >> 32 == 0 {
        return Some((Embedding::Compatible, low));
    }
    if bits >> 32 == 0x0064_ff9b_0000_0000_0000_0000 {
        return Some((Embedding::Nat64, low));
    }
    if bits >> 112 == 0x2002 {
        let v4 = ((bits >> 80) & 0xFFFF_FFFF) as u32;
        return Some((Embedding::SixToFour, Ipv4Addr::from(v4)));
    }
    None
}

/// Checks an IP address: `Err` when it is in a refused range (see the
/// module docs), directly or through an IPv4 address it embeds.
///
/// # Errors
///
/// The refused range.
///
/// # Example
///
/// ```
/// use hookc::net_guard::{check_ip, Range};
/// assert!(check_ip("93.184.215.14".parse()?).is_ok());
/// assert_eq!(check_ip("10.1.2.3".parse()?).unwrap_err().range, Range::Private);
/// assert_eq!(check_ip("::ffff:127.0.0.1".parse()?).unwrap_err().range, Range::Loopback);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_ip(ip: IpAddr) -> Result<(), Refused> {
    match ip {
        IpAddr::V4(v4) => match v4_range(v4) {
            Some(range) => Err(Refused {
                range,
                embedded: None,
            }),
            None => Ok(()),
        },
        IpAddr::V6(v6) => {
            if let Some(range) = v6_range(v6) {
                return Err(Refused {
                    range,
                    embedded: None,
                });
            }
            if let Some((how, v4)) = embedded_v4(v6) {
                if let Some(range) = v4_range(v4) {
                    return Err(Refused {
                        range,
                        embedded: Some((how, v4)),
                    });
                }
            }
            Ok(())
        }
    }
}

/// Host names that reach the local machine or a metadata service, after
/// lowercasing and without a trailing dot; `*.localhost` is refused too.
///
/// The metadata services of clouds that have no name of their own (Azure,
/// Alibaba Cloud, Oracle Cloud, DigitalOcean, Hetzner, OpenStack, …) are
/// reached by address, and their addresses are refused (see [`Range::Metadata`]
/// and the link-local range they are in).
pub const REFUSED_NAMES: &[(&str, &str)] = &[
    ("localhost", "names the local machine"),
    ("localhost.localdomain", "names the local machine"),
    ("ip6-localhost", "names the local machine"),
    ("ip6-loopback", "names the local machine"),
    ("host.docker.internal", "names the Docker host"),
    ("gateway.docker.internal", "names the Docker host"),
    ("kubernetes.docker.internal", "names the local Kubernetes"),
    (
        "metadata.google.internal",
        "names the Google Cloud metadata service",
    ),
    ("metadata.goog", "names the Google Cloud metadata service"),
    ("metadata", "names a cloud metadata service"),
    ("instance-data", "names the AWS metadata service"),
    (
        "instance-data.ec2.internal",
        "names the AWS metadata service",
    ),
    ("metadata.aws.internal", "names the AWS metadata service"),
    (
        "metadata.tencentyun.com",
        "names the Tencent Cloud metadata service",
    ),
    (
        "api.metadata.cloud.ibm.com",
        "names the IBM Cloud metadata service",
    ),
    (
        "metadata.platformequinix.com",
        "names the Equinix Metal metadata service",
    ),
    (
        "metadata.packet.net",
        "names the Equinix Metal metadata service",
    ),
];

/// A host as a URL names it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Host {
    /// A DNS name, lowercase, without a trailing dot.
    Name(String),
    /// An IP address, written as one or decoded from a numeric form.
    Ip(IpAddr),
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Name(name) => f.write_str(name),
            Host::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

/// Why a URL or host is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlError {
    /// No `scheme://`.
    NotAbsolute,
    /// A scheme other than `https`.
    NotHttps {
        /// The scheme, lowercase.
        scheme: String,
    },
    /// `user:password@` before the host.
    UserInfo,
    /// Nothing between `//` and the path.
    EmptyHost,
    /// A port that is not a number from 0 to 65535.
    InvalidPort {
        /// The port as written.
        port: String,
    },
    /// A host that is neither a DNS name nor an IP address (or a numeric
    /// form that does not decode).
    InvalidHost {
        /// The host as written.
        host: String,
    },
    /// A name of the local machine or of a metadata service.
    RefusedName {
        /// The name, lowercase.
        host: String,
        /// Why, e.g. `names the local machine`.
        why: &'static str,
    },
    /// An address in a refused range.
    RefusedAddress {
        /// The host as written.
        host: String,
        /// The address it stands for.
        ip: IpAddr,
        /// Why.
        refused: Refused,
    },
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlError::NotAbsolute => f.write_str("not an absolute `https://` URL"),
            UrlError::NotHttps { scheme } => write!(f, "scheme `{scheme}` is not `https`"),
            UrlError::UserInfo => f.write_str("the URL carries credentials before the host"),
            UrlError::EmptyHost => f.write_str("the URL has no host"),
            UrlError::InvalidPort { port } => write!(f, "`{port}` is not a valid port"),
            UrlError::InvalidHost { host } => {
                write!(f, "`{host}` is not a valid host name or IP address")
            }
            UrlError::RefusedName { host, why } => write!(f, "`{host}` {why}"),
            UrlError::RefusedAddress { host, ip, refused } => {
                if host.trim_start_matches('[').trim_end_matches(']') == ip.to_string() {
                    write!(f, "`{host}` is {refused}")
                } else {
                    write!(f, "`{host}` is {ip}, {refused}")
                }
            }
        }
    }
}

impl std::error::Error for UrlError {}

/// A URL that [`check_url`] accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookUrl {
    /// The host.
    pub host: Host,
    /// The port, when one is written.
    pub port: Option<u16>,
}

/// Checks a webhook URL: `https://` only, no user-info, a valid port, and a
/// host [`check_host`] accepts.
///
/// # Errors
///
/// The first problem found.
///
/// # Example
///
/// ```
/// use hookc::net_guard::check_url;
/// assert!(check_url("https://hooks.example.com/notify").is_ok());
/// assert!(check_url("http://hooks.example.com/notify").is_err());
/// assert!(check_url("https://127.1/").is_err());
/// assert!(check_url("https://user:pw@hooks.example.com/").is_err());
/// ```
pub fn check_url(url: &str) -> Result<WebhookUrl, UrlError> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(UrlError::NotAbsolute);
    };
    let valid_scheme = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return Err(UrlError::NotAbsolute);
    }
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "https" {
        return Err(UrlError::NotHttps { scheme });
    }
    // URL parsers read `\` as `/` in web URLs: end the authority there too.
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let authority = rest.get(..end).unwrap_or("");
    if authority.contains('@') {
        return Err(UrlError::UserInfo);
    }
    let (host, port) = split_port(authority)?;
    if host.is_empty() {
        return Err(UrlError::EmptyHost);
    }
    let host = check_host(host)?;
    Ok(WebhookUrl { host, port })
}

/// `host[:port]` → host and port; IPv6 literals keep their brackets.
fn split_port(authority: &str) -> Result<(&str, Option<u16>), UrlError> {
    let (host, port) = if authority.starts_with('[') {
        match authority.find(']') {
            Some(close) => {
                let host = authority.get(..=close).unwrap_or(authority);
                let after = authority.get(close + 1..).unwrap_or("");
                match after.strip_prefix(':') {
                    Some(port) => (host, Some(port)),
                    None if after.is_empty() => (host, None),
                    None => {
                        return Err(UrlError::InvalidHost {
                            host: authority.to_string(),
                        })
                    }
                }
            }
            None => {
                return Err(UrlError::InvalidHost {
                    host: authority.to_string(),
                })
            }
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        None | Some("") => None,
        Some(p) => {
            if !p.chars().all(|c| c.is_ascii_digit()) {
                return Err(UrlError::InvalidPort {
                    port: p.to_string(),
                });
            }
            Some(p.parse::<u16>().map_err(|_| UrlError::InvalidPort {
                port: p.to_string(),
            })?)
        }
    };
    Ok((host, port))
}

/// Parses a host as a URL parser would: an `[IPv6]` literal, an IPv4
/// address in any numeric form (`2130706433`, `127.1`, `0x7f.0.0.1`,
/// `0177.0.0.1`), or a DNS name (lowercased, without a trailing dot).
///
/// # Errors
///
/// [`UrlError::InvalidHost`] for anything else: characters a DNS name
/// cannot have (including `%`-escapes and non-ASCII letters), or a name
/// that ends in a number but does not decode to an IPv4 address.
pub fn parse_host(host: &str) -> Result<Host, UrlError> {
    let invalid = || UrlError::InvalidHost {
        host: host.to_string(),
    };
    if let Some(inner) = host.strip_prefix('[') {
        let inner = inner.strip_suffix(']').ok_or_else(invalid)?;
        return inner
            .parse::<Ipv6Addr>()
            .map(|ip| Host::Ip(IpAddr::V6(ip)))
            .map_err(|_| invalid());
    }
    let lower = host.to_ascii_lowercase();
    let name = lower.strip_suffix('.').unwrap_or(&lower);
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.split('.').any(str::is_empty);
    if !valid {
        return Err(invalid());
    }
    match parse_ipv4(name) {
        Ipv4Form::Address(ip) => Ok(Host::Ip(IpAddr::V4(ip))),
        Ipv4Form::Invalid => Err(invalid()),
        Ipv4Form::NotNumeric => Ok(Host::Name(name.to_string())),
    }
}

/// Checks a host (as written in a URL, IPv6 literals in brackets): `Err`
/// when it does not parse, names the local machine or a metadata service,
/// or is an IP address [`check_ip`] refuses.
///
/// # Errors
///
/// The reason it is refused.
pub fn check_host(host: &str) -> Result<Host, UrlError> {
    let parsed = parse_host(host)?;
    match &parsed {
        Host::Name(name) => {
            if let Some(&(_, why)) = REFUSED_NAMES.iter().find(|(n, _)| n == name) {
                return Err(UrlError::RefusedName {
                    host: name.clone(),
                    why,
                });
            }
            if name.ends_with(".localhost") {
                return Err(UrlError::RefusedName {
                    host: name.clone(),
                    why: "names the local machine",
                });
            }
        }
        Host::Ip(ip) => {
            if let Err(refused) = check_ip(*ip) {
                return Err(UrlError::RefusedAddress {
                    host: host.to_string(),
                    ip: *ip,
                    refused,
                });
            }
        }
    }
    Ok(parsed)
}

enum Ipv4Form {
    Address(Ipv4Addr),
    Invalid,
    NotNumeric,
}

/// The WHATWG URL standard's IPv4 parser: a host whose last label is a
/// number is an IPv4 address of one to four parts, each decimal, octal
/// (leading `0`) or hex (`0x`); the last part fills the remaining bytes.
fn parse_ipv4(name: &str) -> Ipv4Form {
    let parts: Vec<&str> = name.split('.').collect();
    let Some(last) = parts.last() else {
        return Ipv4Form::NotNumeric;
    };
    let ends_in_number = last.chars().all(|c| c.is_ascii_digit())
        || last
            .strip_prefix("0x")
            .is_some_and(|h| h.chars().all(|c| c.is_ascii_hexdigit()));
    if !ends_in_number {
        return Ipv4Form::NotNumeric;
    }
    if parts.len() > 4 {
        return Ipv4Form::Invalid;
    }
    let mut numbers = Vec::with_capacity(parts.len());
    for part in &parts {
        let (digits, radix) = if let Some(h) = part.strip_prefix("0x") {
            (h, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (part.get(1..).unwrap_or(""), 8)
        } else {
            (*part, 10)
        };
        let n = if digits.is_empty() {
            Some(0)
        } else {
            u64::from_str_radix(digits, radix).ok()
        };
        match n {
            Some(n) => numbers.push(n),
            None => return Ipv4Form::Invalid,
        }
    }
    let Some((&last, init)) = numbers.split_last() else {
        return Ipv4Form::Invalid;
    };
    if init.iter().any(|&n| n > 255) {
        return Ipv4Form::Invalid;
    }
    let free_bits = 8 * (5 - numbers.len() as u32);
    if free_bits < 64 && last >= 1u64 << free_bits {
        return Ipv4Form::Invalid;
    }
    let mut value = last;
    for (i, &n) in init.iter().enumerate() {
        value += n << (8 * (3 - i as u32));
    }
    match u32::try_from(value) {
        Ok(v) => Ipv4Form::Address(Ipv4Addr::from(v)),
        Err(_) => Ipv4Form::Invalid,
    }
}

/// Request headers a rule may not set (lowercase), and why.
pub const REFUSED_HEADERS: &[(&str, &str)] = &[
    ("host", "selects the virtual host; it comes from the URL"),
    ("authorization", "carries credentials"),
    ("proxy-authorization", "carries credentials"),
    ("cookie", "carries credentials"),
    ("forwarded", "claims where the request comes from"),
    ("x-real-ip", "claims where the request comes from"),
    ("connection", "controls the connection"),
    ("keep-alive", "controls the connection"),
    ("upgrade", "controls the connection"),
    ("te", "changes how the message is framed"),
    ("trailer", "changes how the message is framed"),
    ("transfer-encoding", "changes how the message is framed"),
    ("content-length", "changes how the message is framed"),
    ("content-type", "is always `application/json`"),
];

/// Prefixes of request headers a rule may not set (lowercase), and why:
/// `X-Forwarded-For`, `X-Forwarded-Host`, `Proxy-Connection`, ….
pub const REFUSED_HEADER_PREFIXES: &[(&str, &str)] = &[
    ("x-forwarded-", "claims where the request comes from"),
    ("proxy-", "is meant for proxies"),
];

/// Why a header a rule adds is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderError {
    /// A header in [`REFUSED_HEADERS`] or [`REFUSED_HEADER_PREFIXES`].
    Refused {
        /// The name as written.
        name: String,
        /// Why, e.g. `carries credentials`.
        why: &'static str,
    },
    /// A name that is not an HTTP token (empty, or with a space, `:`, …).
    InvalidName {
        /// The name as written.
        name: String,
    },
    /// A value with a line break or another control character.
    InvalidValue {
        /// The header's name.
        name: String,
    },
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderError::Refused { name, why } => {
                write!(f, "header `{name}` may not be set: it {why}")
            }
            HeaderError::InvalidName { name } => {
                write!(f, "`{}` is not a valid header name", name.escape_debug())
            }
            HeaderError::InvalidValue { name } => write!(
                f,
                "the value of header `{name}` has a line break or a control character"
            ),
        }
    }
}

impl std::error::Error for HeaderError {}

/// The reason a header name is refused (whatever its case), if it is.
///
/// ```
/// use hookc::net_guard::refused_header;
/// assert!(refused_header("Authorization").is_some());
/// assert!(refused_header("x-forwarded-for").is_some());
/// assert!(refused_header("X-Team").is_none());
/// ```
pub fn refused_header(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    REFUSED_HEADERS
        .iter()
        .find(|(n, _)| *n == lower)
        .or_else(|| {
            REFUSED_HEADER_PREFIXES
                .iter()
                .find(|(prefix, _)| lower.starts_with(prefix))
        })
        .map(|&(_, why)| why)
}

/// Checks a request header a rule adds: a valid name (an HTTP token) that
/// [`refused_header`] does not refuse, and a value without line breaks or
/// other control characters (tabs are fine).
///
/// # Errors
///
/// The first problem found.
///
/// # Example
///
/// ```
/// use hookc::net_guard::check_header;
/// assert!(check_header("X-Team", "ops").is_ok());
/// assert!(check_header("COOKIE", "a=b").is_err());
/// assert!(check_header("X-Team", "ops\r\nHost: evil").is_err());
/// ```
pub fn check_header(name: &str, value: &str) -> Result<(), HeaderError> {
    let token = !name.is_empty()
        && name.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        });
    if !token {
        return Err(HeaderError::InvalidName {
            name: name.to_string(),
        });
    }
    if let Some(why) = refused_header(name) {
        return Err(HeaderError::Refused {
            name: name.to_string(),
            why,
        });
    }
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return Err(HeaderError::InvalidValue {
            name: name.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(url: &str) -> UrlError {
        match check_url(url) {
            Ok(ok) => panic!("`{url}` was accepted: {ok:?}"),
            Err(e) => e,
        }
    }

    fn range(url: &str) -> Range {
        match refused(url) {
            UrlError::RefusedAddress { refused, .. } => refused.range,
            other => panic!("`{url}`: {other}"),
        }
    }

    #[test]
    fn public_https_urls_are_accepted() {
        for url in [
            "https://hooks.example.com/notify",
            "https://hooks.example.com:8443/a?b=c#d",
            "HTTPS://Hooks.Example.COM./x",
            "https://93.184.215.14/",
            "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/",
            "https://[::ffff:8.8.8.8]/",
            "https://8.8.8.8:443",
            "https://xn--bcher-kva.example/",
            "https://my-host_1.example.org",
            "https://1.2.3.example/",
        ] {
            assert!(check_url(url).is_ok(), "{url}: {:?}", check_url(url));
        }
        assert_eq!(
            check_url("https://HOOKS.example.com.:8443/").unwrap(),
            WebhookUrl {
                host: Host::Name("hooks.example.com".into()),
                port: Some(8443)
            }
        );
    }

    #[test]
    fn schemes_other_than_https_are_refused() {
        assert_eq!(
            refused("http://hooks.example.com"),
            UrlError::NotHttps {
                scheme: "http".into()
            }
        );
        assert_eq!(
            refused("ftp://x.example"),
            UrlError::NotHttps {
                scheme: "ftp".into()
            }
        );
        assert_eq!(refused("hooks.example.com/x"), UrlError::NotAbsolute);
        assert_eq!(refused("//hooks.example.com"), UrlError::NotAbsolute);
        assert_eq!(refused(""), UrlError::NotAbsolute);
    }

    #[test]
    fn user_info_is_refused() {
        assert_eq!(refused("https://user:pw@example.com/"), UrlError::UserInfo);
        assert_eq!(refused("https://@example.com/"), UrlError::UserInfo);
        // The authority ends at `\`, as in URL parsers: then `@` is in the
        // path, and the host is checked.
        assert!(matches!(
            refused("https://127.0.0.1\\@example.com/"),
            UrlError::RefusedAddress { .. }
        ));
        assert!(check_url("https://example.com/a@b").is_ok());
    }

    #[test]
    fn bad_hosts_and_ports() {
        assert_eq!(refused("https:///path"), UrlError::EmptyHost);
        assert_eq!(refused("https://:443/"), UrlError::EmptyHost);
        assert!(matches!(
            refused("https://example.com:99999/"),
            UrlError::InvalidPort { .. }
        ));
        assert!(matches!(
            refused("https://example.com:8o/"),
            UrlError::InvalidPort { .. }
        ));
        for host in [
            "ex ample.com",
            "%6c%6f%63%61%6c%68%6f%73%74",
            "exa\nmple.com",
            "bücher.example",
            "a..b",
            "[::1",
            "[fe80::1%25eth0]",
            "1.2.3.4.5",
            "256.1.1.1",
            "1.2.3.256",
            "0x1g.1.1.1",
            "09.1.1.1",
            "4294967296",
            "1.16777216",
            "example.123",
        ] {
            assert!(
                matches!(
                    refused(&format!("https://{host}/")),
                    UrlError::InvalidHost { .. }
                ),
                "{host}"
            );
        }
    }

    #[test]
    fn local_and_metadata_names_are_refused() {
        for host in [
            "localhost",
            "LOCALHOST",
            "localhost.",
            "api.localhost",
            "host.docker.internal",
            "metadata.google.internal",
            "Metadata.Google.Internal.",
            "metadata.goog",
            "metadata",
            "METADATA.",
            "instance-data",
            "instance-data.ec2.internal",
            "metadata.aws.internal",
            "METADATA.AWS.INTERNAL",
            "metadata.aws.internal.",
            "Metadata.Aws.Internal.",
            "metadata.tencentyun.com",
            "api.metadata.cloud.ibm.com",
            "metadata.platformequinix.com",
            "metadata.packet.net",
        ] {
            assert!(
                matches!(
                    refused(&format!("https://{host}/")),
                    UrlError::RefusedName { .. }
                ),
                "{host}"
            );
        }
        assert_eq!(
            refused("https://Metadata.AWS.internal./latest").to_string(),
            "`metadata.aws.internal` names the AWS metadata service"
        );
        // A port does not change the host.
        assert!(check_url("https://metadata.aws.internal:443/").is_err());
        assert!(check_url("https://metadata.aws.example.com/").is_ok());
        assert!(check_url("https://localhost.example.com/").is_ok());
        assert!(check_url("https://notlocalhost/").is_ok());
    }

    #[test]
    fn ipv4_ranges() {
        let cases = [
            ("0.0.0.0", Range::Unspecified),
            ("0.1.2.3", Range::ThisNetwork),
            ("10.0.0.1", Range::Private),
            ("172.16.0.1", Range::Private),
            ("172.31.255.255", Range::Private),
            ("192.168.1.1", Range::Private),
            ("100.64.0.1", Range::SharedAddressSpace),
            ("100.127.255.255", Range::SharedAddressSpace),
            ("127.0.0.1", Range::Loopback),
            ("127.255.255.254", Range::Loopback),
            ("169.254.1.1", Range::LinkLocal),
            ("169.254.169.254", Range::Metadata),
            ("168.63.129.16", Range::Metadata),
            ("100.100.100.200", Range::Metadata),
            ("192.0.0.192", Range::Metadata),
            ("192.0.0.8", Range::ProtocolAssignments),
            ("192.0.2.1", Range::Documentation),
            ("198.51.100.7", Range::Documentation),
            ("203.0.113.9", Range::Documentation),
            ("198.18.0.1", Range::Benchmarking),
            ("198.19.255.255", Range::Benchmarking),
            ("224.0.0.1", Range::Multicast),
            ("239.255.255.250", Range::Multicast),
            ("240.0.0.1", Range::Reserved),
            ("255.255.255.255", Range::Broadcast),
        ];
        for (ip, want) in cases {
            assert_eq!(range(&format!("https://{ip}/")), want, "{ip}");
        }
        for ip in [
            "172.15.255.255",
            "172.32.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "11.0.0.1",
            "1.1.1.1",
            "223.255.255.255",
        ] {
            assert!(check_ip(ip.parse().unwrap()).is_ok(), "{ip}");
        }
    }

    #[test]
    fn numeric_ipv4_forms_decode() {
        for host in [
            "2130706433",
            "127.1",
            "127.0.1",
            "0x7f.0.0.1",
            "0x7F000001",
            "0177.0.0.1",
            "017700000001",
            "127.0.0.1.",
            "0x7f.1",
        ] {
            assert_eq!(
                range(&format!("https://{host}/")),
                Range::Loopback,
                "{host}"
            );
        }
        assert_eq!(range("https://0/"), Range::Unspecified);
        assert_eq!(range("https://0x0/"), Range::Unspecified);
        assert_eq!(range("https://2852039166/"), Range::Metadata);
        assert_eq!(range("https://0xa9.0xfe.0xa9.0xfe/"), Range::Metadata);
        assert_eq!(range("https://10.1/"), Range::Private);
        assert_eq!(
            parse_host("3232235777").unwrap(),
            Host::Ip("192.168.1.1".parse().unwrap())
        );
        let e = refused("https://2130706433/");
        assert_eq!(
            e.to_string(),
            "`2130706433` is 127.0.0.1, a loopback address"
        );
    }

    #[test]
    fn ipv6_ranges_and_embedded_ipv4() {
        let cases = [
            ("[::]", Range::Unspecified),
            ("[::1]", Range::Loopback),
            ("[0:0:0:0:0:0:0:1]", Range::Loopback),
            ("[fc00::1]", Range::UniqueLocal),
            ("[fd12:3456::1]", Range::UniqueLocal),
            ("[fd00:ec2::254]", Range::Metadata),
            ("[fd20:ce::254]", Range::Metadata),
            ("[fe80::1]", Range::LinkLocal),
            ("[febf::1]", Range::LinkLocal),
            ("[fec0::1]", Range::Private),
            ("[ff02::1]", Range::Multicast),
            ("[2001:db8::1]", Range::Documentation),
            ("[3fff::1]", Range::Documentation),
            ("[2001:2::1]", Range::Benchmarking),
            ("[100::1]", Range::Reserved),
            ("[64:ff9b:1::1]", Range::Reserved),
        ];
        for (ip, want) in cases {
            assert_eq!(range(&format!("https://{ip}/")), want, "{ip}");
        }
        let embedded = [
            ("[::ffff:127.0.0.1]", Embedding::Mapped, Range::Loopback),
            ("[::ffff:7f00:1]", Embedding::Mapped, Range::Loopback),
            (
                "[::ffff:169.254.169.254]",
                Embedding::Mapped,
                Range::Metadata,
            ),
            ("[::ffff:10.0.0.1]", Embedding::Mapped, Range::Private),
            ("[::127.0.0.1]", Embedding::Compatible, Range::Loopback),
            ("[64:ff9b::10.0.0.1]", Embedding::Nat64, Range::Private),
            ("[2002:c0a8:101::1]", Embedding::SixToFour, Range::Private),
        ];
        for (ip, how, want) in embedded {
            match refused(&format!("https://{ip}:8443/")) {
                UrlError::RefusedAddress { refused, .. } => {
                    assert_eq!(refused.range, want, "{ip}");
                    assert_eq!(refused.embedded.map(|e| e.0), Some(how), "{ip}");
                }
                other => panic!("{ip}: {other}"),
            }
        }
        assert!(check_ip("::ffff:8.8.8.8".parse().unwrap()).is_ok());
        assert!(check_ip("64:ff9b::8.8.8.8".parse().unwrap()).is_ok());
        assert!(check_ip("2002:808:808::1".parse().unwrap()).is_ok());
        assert!(check_ip("2606:4700:4700::1111".parse().unwrap()).is_ok());
        let e = refused("https://[::ffff:127.0.0.1]/");
        assert_eq!(
            e.to_string(),
            "`[::ffff:127.0.0.1]` is an IPv4-mapped form of 127.0.0.1, a loopback address"
        );
    }

    #[test]
    fn headers() {
        for name in [
            "Host",
            "host",
            "Authorization",
            "AUTHORIZATION",
            "Cookie",
            "Proxy-Authorization",
            "Forwarded",
            "X-Forwarded-For",
            "x-forwarded-host",
            "X-Forwarded-Proto",
            "X-Real-IP",
            "Connection",
            "Transfer-Encoding",
            "Content-Length",
            "Proxy-Connection",
        ] {
            assert!(
                matches!(check_header(name, "x"), Err(HeaderError::Refused { .. })),
                "{name}"
            );
        }
        for name in ["X-Team", "X-Forwarded", "User-Agent", "X-Api-Key", "Hosts"] {
            assert_eq!(check_header(name, "v\tw"), Ok(()), "{name}");
        }
        for name in ["", "X Team", "X-Team:", "Bad\r\nName", "Ä"] {
            assert!(
                matches!(
                    check_header(name, "x"),
                    Err(HeaderError::InvalidName { .. })
                ),
                "{name:?}"
            );
        }
        for value in ["a\r\nHost: x", "a\nb", "a\0b", "\u{7f}"] {
            assert!(
                matches!(
                    check_header("X-Team", value),
                    Err(HeaderError::InvalidValue { .. })
                ),
                "{value:?}"
            );
        }
        assert_eq!(
            check_header("Cookie", "a=b").unwrap_err().to_string(),
            "header `Cookie` may not be set: it carries credentials"
        );
    }

    #[test]
    fn messages() {
        assert_eq!(
            refused("http://x.example").to_string(),
            "scheme `http` is not `https`"
        );
        assert_eq!(
            refused("https://localhost:8080/").to_string(),
            "`localhost` names the local machine"
        );
        assert_eq!(
            refused("https://10.0.0.1/").to_string(),
            "`10.0.0.1` is a private address"
        );
    }
}
