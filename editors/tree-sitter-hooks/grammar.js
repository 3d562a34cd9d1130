/**
 * @file The hookc rule language (`.hooks` files).
 * @license MIT OR Apache-2.0
 *
 * The reference is hookc's pest grammar, `grammar/hooks.pest` at the root of
 * the repository; this grammar follows it rule by rule. Where pest decides
 * with ordered choice or a lookahead, this grammar lets tree-sitter's
 * context-aware lexer and precedences decide the same way. Expressions are
 * folded into a tree here (pest parses them flat and hookc folds them by
 * precedence): the levels are hookc's (`syntax::vocab::precedence`).
 *
 * The two differ at the edges. This grammar does not refuse a reserved word
 * as a rule id or hook point (`hook deny on …`), which hookc does. And it
 * takes a word that is a keyword only in places (`output`, `exit`,
 * `decision`, …) for that keyword wherever the keyword may stand, where pest
 * falls back to reading a name when the keyword's form does not follow:
 * `expect exit` alone is a condition on a field `exit` for hookc, and an
 * error here. No shipped file does either; `hookc lint` has the last word.
 *
 * The crate's tests (`tests/grammar/`) parse every shipped `.hooks` file and
 * README example with this grammar, and check that hookc's reserved words
 * and pest keywords are this grammar's.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

// The reserved words: pest's `keyword` rule (hookc's `syntax::RESERVED`).
// None of them is ever a name (a rule id, list, pattern, macro or variable).
const RESERVED = [
  'hook', 'on', 'at', 'priority', 'disabled', 'fail', 'open', 'closed',
  'timeout', 'when', 'unless', 'and', 'or', 'not', 'in', 'contains',
  'any', 'all', 'starts_with', 'ends_with', 'matches', 'glob', 'exists', 'true',
  'false', 'null', 'continue', 'abort', 'deny', 'skip', 'replace', 'set',
  'unset', 'rewrite', 'prepend', 'append', 'meta', 'log', 'ask', 'allow',
  'context', 'exec', 'sh', 'webhook', 'call', 'schema', 'import', 'list',
  'pattern', 'macro', 'override', 'let',
];

// The other keywords of the pest grammar (`lua`, `trace`, `output`, `rate`,
// `per`, `include`, `header`, and the words of a test block: `test`,
// `event`, `file`, `target`, `repeat`, `mock`, `stdout`, `stderr`,
// `expect`, `fired`, `decision`, `exit`) are not reserved: each is a keyword
// only where the grammar expects it, and a name elsewhere. tree-sitter's
// lexer does the same: it takes a word for one of them only where that
// keyword is valid.

// Binding strength, higher binds tighter: `or` and `and` as hookc's
// `precedence`, then `not` (it negates one predicate), the tests
// (comparisons, `contains`, `in`, `matches`, …), then the arithmetic and bit
// operators, then the prefix operators.
const PREC = {
  quantifier: 0,
  or: 1,
  and: 2,
  not: 3,
  test: 4,
  bit_or: 5,
  bit_xor: 6,
  bit_and: 7,
  shift: 8,
  add: 9,
  mul: 10,
  prefix: 11,
};

const COMPARISON = ['==', '!=', '<', '<=', '>', '>='];

// A name: a letter or `_`, then letters, digits and `_`.
const NAME = /[A-Za-z_][A-Za-z0-9_]*/;
// A name that may contain `-` (rule ids, schema names, metadata keys).
const DASHED_NAME = /[A-Za-z_][A-Za-z0-9_-]*/;
// A dotted name (hook points, output fields).
const DOTTED_NAME = /[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/;

/**
 * One or more `rule`, separated by commas.
 * @param {RuleOrLiteral} rule
 * @returns {SeqRule}
 */
function commaSep1(rule) {
  return seq(rule, repeat(seq(',', rule)));
}

/**
 * Zero or more `rule`, separated by commas, with an optional trailing comma.
 * @param {RuleOrLiteral} rule
 * @returns {ChoiceRule}
 */
function commaSepTrailing(rule) {
  return optional(seq(commaSep1(rule), optional(',')));
}

module.exports = grammar({
  name: 'hooks',

  extras: $ => [/\s/, $.comment],

  word: $ => $.identifier,

  reserved: {
    global: _ => RESERVED,
  },

  conflicts: $ => [
    // `rate` starts a rate test, or is a plain name (pest tries the rate
    // test first and falls back to a call or a path).
    [$.rate_expression, $._name],
    // `skip` then `replace`: see `skip_action`.
    [$.skip_action],
  ],

  rules: {
    source_file: $ => repeat($._item),

    _item: $ => choice(
      $.schema_declaration,
      $.import_declaration,
      $.list_declaration,
      $.pattern_declaration,
      $.macro_declaration,
      $.hook_declaration,
      $.override_declaration,
      $.test_declaration,
    ),

    // ---------------------------------------------------------------------
    // Items
    // ---------------------------------------------------------------------

    // `schema orcs` or `schema "path/app.schema.toml"`.
    schema_declaration: $ => seq(
      'schema',
      field('schema', choice($.string, alias($._dashed_name, $.schema_name))),
    ),

    // `import "common.hooks"`.
    import_declaration: $ => seq('import', field('path', $.string)),

    // `list dangerous = [...]` or `list dangerous += [...]`.
    list_declaration: $ => seq(
      'list',
      field('name', $.identifier),
      field('operator', choice('=', '+=')),
      field('value', $.array),
    ),

    // `pattern secret = /AKIA[0-9A-Z]{16}/`.
    pattern_declaration: $ => seq(
      'pattern',
      field('name', $.identifier),
      '=',
      field('value', $.regex),
    ),

    // `macro is_exec = payload.tool == "exec"`.
    macro_declaration: $ => seq(
      'macro',
      field('name', $.identifier),
      '=',
      field('value', $._expression),
    ),

    // `override deny-x priority 5 disabled`.
    override_declaration: $ => seq(
      'override',
      field('rule', alias($._dashed_name, $.hook_id)),
      repeat1($._hook_option),
    ),

    // ---------------------------------------------------------------------
    // Hooks
    // ---------------------------------------------------------------------

    // `hook id on point, … at fql options { conditions actions }`.
    hook_declaration: $ => seq(
      'hook',
      field('name', alias($._dashed_name, $.hook_id)),
      'on',
      commaSep1(field('point', alias($._dotted_name, $.hook_point))),
      optional(field('target', $.target)),
      repeat($._hook_option),
      field('body', $.hook_body),
    ),

    // `at builtin::*` or `at "builtin::llm"`.
    target: $ => seq('at', choice($.string, $.fql)),

    fql: _ => /[A-Za-z0-9_*.:\/#@-]+/,

    _hook_option: $ => choice(
      $.priority_option,
      $.disabled_option,
      $.fail_option,
      $.timeout_option,
    ),

    priority_option: $ => seq('priority', field('value', $.integer)),

    disabled_option: _ => 'disabled',

    fail_option: _ => seq('fail', choice('open', 'closed')),

    timeout_option: $ => seq('timeout', field('value', $.duration)),

    hook_body: $ => seq(
      '{',
      repeat(choice($.condition, $.let_binding)),
      repeat($._action),
      '}',
    ),

    // `when e` or `unless e`.
    condition: $ => seq(
      choice('when', 'unless'),
      field('test', $._expression),
    ),

    // `let name = e`.
    let_binding: $ => seq(
      'let',
      field('name', $.identifier),
      '=',
      field('value', $._expression),
    ),

    // ---------------------------------------------------------------------
    // Actions
    // ---------------------------------------------------------------------

    _action: $ => choice(
      $.continue_action,
      $.abort_action,
      $.deny_action,
      $.skip_action,
      $.replace_action,
      $.set_action,
      $.unset_action,
      $.rewrite_action,
      $.prepend_action,
      $.append_action,
      $.meta_action,
      $.output_action,
      $.log_action,
      $.ask_action,
      $.allow_action,
      $.context_action,
      $.exec_action,
      $.sh_action,
      $.webhook_action,
      $.call_action,
      $.lua_action,
      $.trace_action,
    ),

    continue_action: _ => 'continue',

    abort_action: $ => seq('abort', optional(field('reason', $.string))),

    deny_action: $ => seq('deny', optional(field('reason', $.string))),

    // `skip` then `replace` is a skip with a value when `replace(…)` is a
    // call, and a skip then a `replace` action otherwise; pest tries the
    // value first, so the parse with a value wins when both are whole.
    skip_action: $ => choice(
      prec.dynamic(1, seq('skip', field('value', $._expression))),
      'skip',
    ),

    replace_action: $ => seq('replace', field('value', $._expression)),

    set_action: $ => seq(
      'set',
      field('path', $.path),
      '=',
      field('value', $._expression),
    ),

    unset_action: $ => seq('unset', field('path', $.path)),

    // `rewrite payload.a /re/ -> "replacement"`.
    rewrite_action: $ => seq(
      'rewrite',
      field('path', $.path),
      field('pattern', $._regex_ref),
      '->',
      field('replacement', $.string),
    ),

    prepend_action: $ => seq('prepend', field('path', $.path), field('text', $.string)),

    append_action: $ => seq('append', field('path', $.path), field('text', $.string)),

    // `meta key = e` or `meta "key" = e`.
    meta_action: $ => seq(
      'meta',
      field('key', choice($.string, alias($._dashed_name, $.meta_key))),
      '=',
      field('value', $._expression),
    ),

    // `output systemMessage = "…"`.
    output_action: $ => seq(
      'output',
      field('name', alias($._dotted_name, $.output_name)),
      '=',
      field('value', $._expression),
    ),

    // `log info "template"`.
    log_action: $ => seq('log', field('level', alias($._any_name, $.log_level)), field('message', $.string)),

    ask_action: $ => seq('ask', optional(field('reason', $.string))),

    allow_action: _ => 'allow',

    context_action: $ => seq('context', field('text', $.string)),

    // `exec "program" "arg" …`.
    exec_action: $ => seq('exec', field('program', $.string), repeat(field('argument', $.string))),

    sh_action: $ => seq('sh', field('script', $.string)),

    // `webhook "https://…" include a, b header "X-Team" "ops"`.
    webhook_action: $ => seq(
      'webhook',
      field('url', $.string),
      repeat(choice($.include_clause, $.header_clause)),
    ),

    include_clause: $ => seq('include', commaSep1($.path)),

    header_clause: $ => seq('header', field('name', $.string), field('value', $.string)),

    // `call "handler"` or `call lua "hooks/audit.lua"`.
    call_action: $ => seq('call', optional('lua'), field('handler', $.string)),

    // `lua """function(ctx) … end"""`.
    lua_action: $ => seq('lua', field('code', choice($.long_string, $.string))),

    // `trace "agent_trace.jsonl" payload.a, payload.b`.
    trace_action: $ => seq(
      'trace',
      field('file', $.string),
      optional(commaSep1(field('field', $.path))),
    ),

    // ---------------------------------------------------------------------
    // Tests
    // ---------------------------------------------------------------------

    // `test "name" { event {…} target "…" repeat N mock … expect … }`.
    test_declaration: $ => seq(
      'test',
      field('name', $.string),
      '{',
      $.test_event,
      optional($.test_target),
      optional($.test_repeat),
      repeat($.mock),
      repeat($.expectation),
      '}',
    ),

    // `event {…}` or `event file "events/rm.json"`.
    test_event: $ => seq('event', choice($.object, $.event_file)),

    event_file: $ => seq('file', field('path', $.string)),

    test_target: $ => seq('target', field('component', $.string)),

    test_repeat: $ => seq('repeat', field('count', $.index)),

    // `mock "audit" abort "denied"`, `mock sh "npm test*" exit 2`, …
    mock: $ => seq('mock', choice($.mock_command, $.mock_webhook, $.mock_call)),

    // `[call] "name" REPLY`.
    mock_call: $ => seq(
      optional('call'),
      field('handler', $.string),
      choice(
        seq('abort', optional(field('reason', $.string))),
        'continue',
        seq('ask', optional(field('reason', $.string))),
        seq('skip', optional(field('value', $._expression))),
        'allow',
      ),
    ),

    // `exec|sh "glob" [exit N] [stdout TEXT|{…}] [stderr TEXT]`.
    mock_command: $ => seq(
      choice('exec', 'sh'),
      field('glob', $.string),
      repeat(choice(
        seq('exit', field('exit', $.index)),
        seq('stdout', field('stdout', choice($.string, $.object))),
        seq('stderr', field('stderr', $.string)),
      )),
    ),

    // `webhook "glob" [fail "reason"]`.
    mock_webhook: $ => seq(
      'webhook',
      field('glob', $.string),
      optional(seq('fail', field('reason', $.string))),
    ),

    // `expect abort "reason"`, `expect fired ["id"]`, `expect payload.n == 7`.
    expectation: $ => seq(
      'expect',
      choice(
        seq('abort', optional(field('reason', $.string))),
        'continue',
        seq('skip', optional(field('value', $._expression))),
        seq('ask', optional(field('reason', $.string))),
        seq('fired', field('rules', $.array)),
        seq('decision', field('decision', alias($._any_name, $.decision_name))),
        seq('output', field('output', choice($.object, $.null))),
        seq('exit', field('exit', $.index)),
        field('test', $._expression),
      ),
    ),

    // ---------------------------------------------------------------------
    // Expressions
    // ---------------------------------------------------------------------

    _expression: $ => choice(
      $.boolean_expression,
      $.not_expression,
      $._predicate,
    ),

    boolean_expression: $ => choice(
      prec.left(PREC.or, seq(field('left', $._expression), field('operator', 'or'), field('right', $._expression))),
      prec.left(PREC.and, seq(field('left', $._expression), field('operator', 'and'), field('right', $._expression))),
    ),

    not_expression: $ => prec(PREC.not, seq('not', field('operand', $._expression))),

    _predicate: $ => choice(
      $.rate_expression,
      $.quantified_expression,
      $.comparison_expression,
      $.contains_expression,
      $.starts_with_expression,
      $.ends_with_expression,
      $.in_expression,
      $.matches_expression,
      $.glob_expression,
      $.exists_expression,
      $._arith,
    ),

    // `any c in shell(payload.args): c.program == "rm"`: the condition
    // extends as far right as an expression can.
    quantified_expression: $ => prec.right(PREC.quantifier, seq(
      field('quantifier', choice('any', 'all')),
      field('variable', $.identifier),
      'in',
      field('list', $._arith),
      ':',
      field('condition', $._expression),
    )),

    // `rate("{component}:{payload.operation}") > 100 per 60s`.
    rate_expression: $ => seq(
      'rate',
      '(',
      field('key', $.string),
      ')',
      field('operator', choice(...COMPARISON)),
      field('limit', $.number),
      'per',
      field('window', $.duration),
    ),

    comparison_expression: $ => prec.left(PREC.test, seq(
      field('left', $._arith),
      field('operator', choice(...COMPARISON)),
      field('right', $._arith),
    )),

    // `contains e` or `contains any LIST`.
    contains_expression: $ => prec.left(PREC.test, seq(
      field('left', $._arith),
      'contains',
      choice(
        field('right', $._arith),
        seq('any', field('set', $._set)),
      ),
    )),

    starts_with_expression: $ => prec.left(PREC.test, seq(
      field('left', $._arith),
      'starts_with',
      field('right', $._arith),
    )),

    ends_with_expression: $ => prec.left(PREC.test, seq(
      field('left', $._arith),
      'ends_with',
      field('right', $._arith),
    )),

    // `in LIST` or `not in LIST`.
    in_expression: $ => prec.left(PREC.test, seq(
      field('left', $._arith),
      optional('not'),
      'in',
      field('set', $._set),
    )),

    matches_expression: $ => prec.left(PREC.test, seq(
      field('left', $._arith),
      'matches',
      field('pattern', $._regex_ref),
    )),

    glob_expression: $ => prec.left(PREC.test, seq(
      field('left', $._arith),
      'glob',
      field('pattern', $.string),
    )),

    exists_expression: $ => prec.left(PREC.test, seq(field('left', $._arith), 'exists')),

    // A set operand: an array literal, a list name or a path.
    _set: $ => choice($.array, $.path),

    // A regex operand: a literal or a pattern name.
    _regex_ref: $ => choice($.regex, $.identifier),

    _arith: $ => choice(
      $.binary_expression,
      $.unary_expression,
      $._operand,
    ),

    binary_expression: $ => choice(...[
      ['|', PREC.bit_or],
      ['^', PREC.bit_xor],
      ['&', PREC.bit_and],
      ['<<', PREC.shift],
      ['>>', PREC.shift],
      ['+', PREC.add],
      ['-', PREC.add],
      ['*', PREC.mul],
      ['/', PREC.mul],
      ['%', PREC.mul],
    ].map(([operator, precedence]) => prec.left(/** @type {number} */ (precedence), seq(
      field('left', $._arith),
      field('operator', /** @type {string} */ (operator)),
      field('right', $._arith),
    )))),

    // `-a` or `~a`.
    unary_expression: $ => prec(PREC.prefix, seq(
      field('operator', choice('-', '~')),
      field('operand', $._arith),
    )),

    _operand: $ => choice(
      $.number,
      $.string,
      $.true,
      $.false,
      $.null,
      $.array,
      $.object,
      $.parenthesized_expression,
      $.call_expression,
      $.path,
    ),

    parenthesized_expression: $ => seq('(', $._expression, ')'),

    // `lower(payload.name)`; `replace` is a keyword that also names a
    // function.
    call_expression: $ => seq(
      field('function', choice($._name, alias('replace', $.identifier))),
      field('arguments', $.arguments),
    ),

    arguments: $ => seq('(', commaSepTrailing($._expression), ')'),

    array: $ => seq('[', commaSepTrailing($._expression), ']'),

    object: $ => seq('{', commaSepTrailing($.pair), '}'),

    pair: $ => seq(field('key', $.string), ':', field('value', $._expression)),

    // `payload.args[0]`, `metadata["x-y"]`, `depth`: no blanks inside.
    path: $ => seq(
      field('root', $._name),
      repeat(choice(
        seq(token.immediate('.'), $.field),
        seq(token.immediate('['), choice($.index, $.string), ']'),
      )),
    ),

    // A name where a name is expected; `rate` (not reserved) is one too.
    _name: $ => choice($.identifier, alias('rate', $.identifier)),

    // A field name after `.`: reserved words are fine here.
    field: _ => token.immediate(NAME),

    // ---------------------------------------------------------------------
    // Tokens
    // ---------------------------------------------------------------------

    identifier: _ => NAME,

    // Names that are not identifiers: reserved words are fine in them (pest
    // checks only that a rule id or schema name is not a reserved word
    // alone, and hookc's checker validates each).
    _any_name: _ => token(prec(-1, NAME)),

    _dashed_name: _ => token(prec(-1, DASHED_NAME)),

    _dotted_name: _ => token(prec(-1, DOTTED_NAME)),

    true: _ => 'true',

    false: _ => 'false',

    null: _ => 'null',

    // `42`, `1.5`, `2e3` (a sign is a prefix operator).
    number: _ => /\d+(\.\d+)?([eE][+-]?\d+)?/,

    // `10`, `-5` (a priority).
    integer: _ => /-?\d+/,

    // An array index or a count, e.g. `0`.
    index: _ => /\d+/,

    // `5s`, `500ms`, `1h`; the unit is checked by hookc.
    duration: _ => /\d+[A-Za-z0-9_]*/,

    // A string with JSON escapes and `{path}` template holes.
    string: $ => seq(
      '"',
      repeat(choice(
        $.string_content,
        $.escape_sequence,
        $.interpolation,
      )),
      token.immediate('"'),
    ),

    string_content: _ => token.immediate(prec(1, /[^"\\\r\n{}]+|[{}]/)),

    // `\n`, `\"`, `\u00e9`, and the literal braces `{{`, `}}`.
    escape_sequence: _ => token.immediate(prec(2, choice(
      /\\u[0-9A-Fa-f]{4}/,
      /\\[^\r\n]/,
      '{{',
      '}}',
    ))),

    // `{payload.tool}`: a field's value, put in when an action runs.
    interpolation: _ => token.immediate(prec(2, /\{[^{}"\\\r\n]+\}/)),

    // `"""…"""`: text over several lines, taken as written.
    long_string: _ => token(seq(
      '"""',
      repeat(choice(/[^"]/, /"[^"]/, /""[^"]/)),
      '"""',
    )),

    // `/re/flags`; with the `x` (verbose) flag the literal may span lines.
    regex: _ => token(choice(
      seq('/', repeat(choice(/[^\/\\\r\n]/, /\\[^\r\n]/)), '/', /[A-Za-z0-9_]*/),
      seq('/', repeat(choice(/[^\/\\]/, /\\(.|\r?\n)/)), '/', /[A-Za-z0-9_]*x[A-Za-z0-9_]*/),
    )),

    // `# …` to the end of the line.
    comment: _ => token(seq('#', /[^\r\n]*/)),
  },
});
