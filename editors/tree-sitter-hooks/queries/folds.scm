; Folding: rule bodies, test blocks, and multi-line literals.

[
  (hook_body)
  (test_declaration)
  (object)
  (array)
  (arguments)
  (long_string)
] @fold
