; Syntax highlighting for `.hooks` files.

(comment) @comment

; Items

[
  "schema"
  "import"
] @keyword.import

[
  "list"
  "pattern"
  "macro"
  "hook"
  "override"
  "let"
  "test"
] @keyword

(schema_name) @module

(list_declaration name: (identifier) @constant)
(pattern_declaration name: (identifier) @constant)
(macro_declaration name: (identifier) @function.macro)
(let_binding name: (identifier) @variable)

; Hooks

[
  "on"
  "at"
] @keyword

(hook_declaration name: (hook_id) @function)
(override_declaration rule: (hook_id) @function)
(hook_point) @type
(fql) @string.special

[
  "priority"
  "fail"
  "open"
  "closed"
  "timeout"
] @attribute

(disabled_option) @attribute

[
  "when"
  "unless"
] @keyword.conditional

; Actions

[
  "continue"
  "abort"
  "deny"
  "skip"
  "replace"
  "set"
  "unset"
  "rewrite"
  "prepend"
  "append"
  "meta"
  "output"
  "log"
  "ask"
  "allow"
  "context"
  "exec"
  "sh"
  "webhook"
  "include"
  "header"
  "call"
  "lua"
  "trace"
] @keyword

(continue_action) @keyword
(allow_action) @keyword

(meta_key) @property
(output_name) @property
(log_level) @constant
(decision_name) @constant

; Tests

[
  "event"
  "file"
  "target"
  "repeat"
  "mock"
  "expect"
  "fired"
  "decision"
  "exit"
  "stdout"
  "stderr"
] @keyword

; Expressions

[
  "and"
  "or"
  "not"
  "in"
  "contains"
  "starts_with"
  "ends_with"
  "matches"
  "glob"
  "exists"
] @keyword.operator

[
  "any"
  "all"
] @keyword.repeat

[
  "rate"
  "per"
] @keyword

(quantified_expression variable: (identifier) @variable.parameter)

(call_expression function: (identifier) @function.call)

(path root: (identifier) @variable)
(field) @property

(matches_expression pattern: (identifier) @constant)
(rewrite_action pattern: (identifier) @constant)

[
  "=="
  "!="
  "<"
  "<="
  ">"
  ">="
  "+"
  "-"
  "*"
  "/"
  "%"
  "&"
  "|"
  "^"
  "~"
  "<<"
  ">>"
  "="
  "+="
  "->"
] @operator

; Literals

(string) @string
(long_string) @string
(escape_sequence) @string.escape
(interpolation) @string.special
(regex) @string.regexp

[
  (number)
  (integer)
  (index)
  (duration)
] @number

[
  (true)
  (false)
] @boolean

(null) @constant.builtin

(pair key: (string) @property)

; Punctuation

[
  "("
  ")"
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket

[
  ","
  ":"
  "."
] @punctuation.delimiter
