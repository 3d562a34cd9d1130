//! The static types the checker infers for expressions.

use super::*;

/// A static type, as far as the checker knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    String,
    Int,
    Float,
    Bool,
    List,
    Object,
    Null,
    Any,
}

impl Ty {
    pub(super) fn of_json(v: &Value) -> Ty {
        match v {
            Value::Null => Ty::Null,
            Value::Bool(_) => Ty::Bool,
            Value::Number(n) if n.is_i64() || n.is_u64() => Ty::Int,
            Value::Number(_) => Ty::Float,
            Value::String(_) => Ty::String,
            Value::Array(_) => Ty::List,
            Value::Object(_) => Ty::Object,
        }
    }

    pub(super) fn from_field(t: FieldType) -> Ty {
        match t {
            FieldType::String | FieldType::Path => Ty::String,
            FieldType::Int => Ty::Int,
            FieldType::Float => Ty::Float,
            FieldType::Bool => Ty::Bool,
            FieldType::List => Ty::List,
            FieldType::Object => Ty::Object,
            FieldType::Any => Ty::Any,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Ty::String => "a string",
            Ty::Int => "an int",
            Ty::Float => "a float",
            Ty::Bool => "a bool",
            Ty::List => "a list",
            Ty::Object => "an object",
            Ty::Null => "null",
            Ty::Any => "any value",
        }
    }

    pub(super) fn is_number(self) -> bool {
        matches!(self, Ty::Int | Ty::Float)
    }

    /// True when values of the two types can be equal.
    pub(super) fn comparable(self, other: Ty) -> bool {
        self == other
            || matches!(self, Ty::Any | Ty::Null)
            || matches!(other, Ty::Any | Ty::Null)
            || (self.is_number() && other.is_number())
    }
}
