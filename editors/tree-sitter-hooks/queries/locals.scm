; Scopes, definitions and references in `.hooks` files.

; A rule body and a quantifier introduce names (`let`, the quantifier's
; variable) visible only inside them.
(hook_body) @local.scope
(quantified_expression) @local.scope

(let_binding name: (identifier) @local.definition.var)
(quantified_expression variable: (identifier) @local.definition.parameter)

; Lists, patterns and macros are file-wide.
(list_declaration name: (identifier) @local.definition.constant)
(pattern_declaration name: (identifier) @local.definition.constant)
(macro_declaration name: (identifier) @local.definition.macro)

(path root: (identifier) @local.reference)
(matches_expression pattern: (identifier) @local.reference)
(rewrite_action pattern: (identifier) @local.reference)
