//! The hookc rule language (`.hooks` files) for [tree-sitter].
//!
//! [`LANGUAGE`] is the parser; load it into a `tree_sitter::Parser`:
//!
//! ```
//! let mut parser = tree_sitter::Parser::new();
//! parser
//!     .set_language(&tree_sitter_hooks::LANGUAGE.into())
//!     .expect("the grammar's ABI is supported");
//! let source = "hook stop on tool.pre_execute at builtin::* {\n    abort \"no\"\n}\n";
//! let tree = parser.parse(source, None).expect("a tree");
//! assert!(!tree.root_node().has_error());
//! ```
//!
//! [tree-sitter]: https://tree-sitter.github.io/

use tree_sitter_language::LanguageFn;

extern "C" {
    fn tree_sitter_hooks() -> *const ();
}

/// The tree-sitter language of `.hooks` files.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_hooks) };

/// The node types of the grammar (`src/node-types.json`).
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// The syntax-highlighting query (`queries/highlights.scm`).
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

/// The locals query (`queries/locals.scm`): definitions and references.
pub const LOCALS_QUERY: &str = include_str!("../../queries/locals.scm");

/// The folds query (`queries/folds.scm`).
pub const FOLDS_QUERY: &str = include_str!("../../queries/folds.scm");
