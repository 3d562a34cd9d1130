//! The wire form of actions.

use super::expr::{Expr, FieldPath, RegexId, Template};
use super::{wire_of, One, Seq};
use crate::ir;
use serde::{Deserialize, Serialize};

/// [`ir::LogLevel`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::LogLevel")]
pub(super) enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

/// [`ir::LuaCode`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::LuaCode")]
pub(super) enum LuaCode {
    File(String),
    Inline(String),
}

/// [`ir::Action`].
#[derive(Serialize, Deserialize)]
#[serde(remote = "ir::Action")]
pub(super) enum Action {
    Continue,
    Abort(#[serde(with = "One::<Template>")] ir::Template),
    Skip(#[serde(with = "One::<Expr>")] ir::Expr),
    Replace(#[serde(with = "One::<Expr>")] ir::Expr),
    Set(
        #[serde(with = "One::<FieldPath>")] ir::FieldPath,
        #[serde(with = "One::<Expr>")] ir::Expr,
    ),
    Unset(#[serde(with = "One::<FieldPath>")] ir::FieldPath),
    Rewrite(
        #[serde(with = "One::<FieldPath>")] ir::FieldPath,
        #[serde(with = "One::<RegexId>")] ir::RegexId,
        String,
    ),
    Prepend(
        #[serde(with = "One::<FieldPath>")] ir::FieldPath,
        #[serde(with = "One::<Template>")] ir::Template,
    ),
    Append(
        #[serde(with = "One::<FieldPath>")] ir::FieldPath,
        #[serde(with = "One::<Template>")] ir::Template,
    ),
    Meta(String, #[serde(with = "One::<Expr>")] ir::Expr),
    Log(
        #[serde(with = "One::<LogLevel>")] ir::LogLevel,
        #[serde(with = "One::<Template>")] ir::Template,
    ),
    Ask(#[serde(with = "One::<Template>")] ir::Template),
    Allow,
    Context(#[serde(with = "One::<Template>")] ir::Template),
    Exec {
        program: String,
        args: Vec<String>,
        shell: bool,
    },
    Webhook {
        url: String,
        #[serde(with = "Seq::<FieldPath>")]
        include: Vec<ir::FieldPath>,
        headers: Vec<(String, String)>,
    },
    Call(String),
    Lua(#[serde(with = "One::<LuaCode>")] ir::LuaCode),
    Trace {
        file: String,
        #[serde(with = "Seq::<FieldPath>")]
        fields: Vec<ir::FieldPath>,
    },
    Output(String, #[serde(with = "One::<Expr>")] ir::Expr),
}

wire_of!(
    LogLevel => ir::LogLevel,
    LuaCode => ir::LuaCode,
    Action => ir::Action,
);
