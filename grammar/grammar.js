/**
 * @file Lean 4 grammar for tree-sitter (math-forge).
 *
 * Design: commands are structured, terms are permissive sequences of atoms,
 * operators and balanced groups, and layout (tactic blocks, `do` blocks,
 * `where` fields, alternatives...) is driven by an indentation stack kept in
 * the external scanner (src/scanner.c), in the style of tree-sitter-python.
 */

/* eslint-disable arrow-parens, camelcase */

// ---------------------------------------------------------------------------
// Lexical classes (Rust regex syntax, see RustRegex)
// ---------------------------------------------------------------------------

// Identifier characters follow Lean's `isLetterLike` / `isSubScriptAlnum`:
// ASCII letters, Greek (without λ, Π, Σ), Coptic, polytonic Greek, the
// letter-like block (ℕ ℝ ...), mathematical alphanumerics, and subscripts.
const LETTER_LIKE = String.raw`\u{C0}-\u{D6}\u{D8}-\u{F6}\u{F8}-\u{17F}\u{3B1}-\u{3BA}\u{3BC}-\u{3C9}\u{391}-\u{39F}\u{3A1}\u{3A2}\u{3A4}-\u{3A9}\u{3CA}-\u{3FB}\u{1F00}-\u{1FFE}\u{2100}-\u{214F}\u{1D49C}-\u{1D59F}`;
const SUBSCRIPT = String.raw`\u{2080}-\u{2089}\u{2090}-\u{209C}\u{1D62}-\u{1D6A}\u{2C7C}`;
const ID_FIRST = String.raw`[A-Za-z_${LETTER_LIKE}]`;
const ID_REST = String.raw`[A-Za-z_0-9'!?${LETTER_LIKE}${SUBSCRIPT}]`;
const ID_PART = String.raw`(?:${ID_FIRST}${ID_REST}*|«[^»\n]*»)`;
const IDENT = String.raw`${ID_PART}(?:\.(?:${ID_PART}|[0-9]+))*`;

// Characters that may form operators: everything that is not whitespace, an
// identifier character, a digit, a bracket, a separator, a quote, or a
// binder symbol.  `:` is excluded so that `:=`/`:` stay separate tokens.
// N-ary operators start binder notations (`∑ x ∈ s, f x`, a project's `⨍ x in s, f x`): the
// quantifiers, Π Σ, and Unicode's n-ary operators (∏ ∐ ∑, ⋀ ⋁ ⋂ ⋃, the integrals ∫–∳ and
// ⨀–⨜), each with optional primes, `!` and super- or subscripts (`∑'`, `∃!`, `∀ᶠ`, `∫⁻`, `⋃₀`).
const NARY = String.raw`∀∃ΠΣ\u{220F}-\u{2211}\u{22C0}-\u{22C3}\u{222B}-\u{2233}\u{2A00}-\u{2A1C}`;
const NARY_MOD = String.raw`'!\u{1D2C}-\u{1D6A}\u{1D9B}-\u{1DBF}\u{2070}-\u{209C}`;
const SYM_EXCLUDED = String.raw`\s A-Za-z_0-9${LETTER_LIKE}'"\x60,;:()\[\]{}⟨⟩⦃⦄‹›⟪⟫«»λ${NARY}`;
const SYM = String.raw`[^${SYM_EXCLUDED}]`;


const DECL_KW_NAMED = ['theorem', 'lemma', 'def', 'abbrev', 'axiom', 'opaque'];

const MODIFIERS = [
  'private', 'protected', 'public', 'noncomputable', 'partial', 'unsafe',
  'nonrec', 'meta', 'local', 'scoped',
];

const SYNTAX_KW = [
  'notation', 'notation3', 'infix', 'infixl', 'infixr', 'prefix', 'postfix',
  'macro', 'macro_rules', 'syntax', 'elab', 'elab_rules', 'declare_syntax_cat',
  'binder_predicate', 'initialize', 'builtin_initialize', 'simproc', 'dsimproc',
  'register_simp_attr', 'add_decl_doc', 'irreducible_def',
];

// Words that always start a command; they are reserved so that an unclosed
// bracket or unfinished term cannot swallow the next command.
const RESERVED = [
  'theorem', 'lemma', 'def', 'abbrev', 'instance', 'example', 'axiom', 'opaque',
  'structure', 'class', 'inductive', 'namespace', 'section', 'end', 'open',
  'import', 'variable', 'universe', 'set_option', 'attribute', 'mutual',
  'noncomputable', 'private', 'protected', 'local', 'scoped',
  'macro', 'macro_rules', 'syntax', 'elab', 'elab_rules', 'notation',
  'infix', 'infixl', 'infixr', 'prefix', 'postfix', 'declare_syntax_cat',
];

const sep1 = (sep, rule) => seq(rule, repeat(seq(sep, rule)));

module.exports = grammar({
  name: 'lean',

  word: $ => $.identifier,

  extras: $ => [
    /\s/,
    $.line_comment,
    $.block_comment,
    $.doc_comment,
    $.module_doc,
    $._comment_guard,
    // the scanner marks an operator at the end of a line: the next line continues the term
    // even when it is less indented than a tactic block opened on the line (`all_goals
    // have h : a ∧` / `    b := by omega`), as Lean's binary operators take their right
    // operand without a column check
    $._op_eol,
  ],

  externals: $ => [
    $._layout_start,
    $._layout_sep,
    $._layout_end,
    $._comma,
    $._bar,
    $.block_comment,
    $.doc_comment,
    $.module_doc,
    $._interp_content,
    $.exit_tail,
    $._then,
    $._else,
    $._calc_start,
    $._abs_bar,
    $._calc_steps_start,
    $._alts_start,
    $._error_sentinel,
    $._command_start,
    $._command_end,
    $._tactic_start,
    $._comment_guard,
    // the block of a command's `where` (fields, structure fields, local definitions)
    $._where_start,
    // zero-width, before an operator that ends its line (see `extras`)
    $._op_eol,
    // the fenced body of Verso's `#docs … :=` (`:::::::` … `:::::::`)
    $._verso_fenced,
    // zero-width, before an `open … in` / `set_option … in` that a term follows
    $._term_prefix_start,
    // an HTML element written in a term (see `jsx_element`)
    $.jsx_element,
    // a bracket notation's brackets (`⁅`, `⁆`, `⟦`, …) and a `,` inside one
    $._notation_open,
    $._notation_close,
    $._notation_comma,
    // a `|` among a tactic's arguments (a project's tactic: `my_tac a | b`)
    $._arg_bar,
    // zero-width, before the `do` sequence of a `try`
    $._try_block,
    // valid right after the field and arguments of `e |>.f a b`, where the scanner makes a
    // binary operator an error; zero-width at the end of the line (see `_pipe_proj`)
    $._pipe_check,
    // zero-width, right after a `calc` step's `:=` (see `calc_step`)
    $._calc_proof,
    // Lean's raw string `r"…"`, `r#"…"#`, `r##"…"##`, …: it ends at a `"` followed by as many
    // `#` as it began with, which no regular expression can count
    $.raw_string,
    // never emitted: valid where a command takes one more name (`open A` / `  B`), it tells the
    // scanner that an indented word there goes on with the command (see `_more_names`)
    $._more_names,
  ],

  reserved: {
    global: $ => RESERVED,
    soup: $ => [],
  },

  supertypes: $ => [],

  inline: $ => [
    $._atom,
    $._term_part,
    $._term_part_nh,
    $._group,
    $._comma_tok,
    $._bar_tok,
    $._then_tok,
    $._else_tok,
    $._tactic_arg,
    $._tactic_arg_nh,
    $._tactic_sep,
    $._term_keyword,
    $._do_item,
    $._binder,
    $._bracket_binder,
    $._term,
  ],

  // `private mk ::` or a `private` field: known at `::`.
  conflicts: $ => [[$.constructor_name, $.field]],

  rules: {
    // A command at column 0 is preceded by the scanner's zero-width `_command_start` (Lean's
    // front end parses a command at a time; column 0 is where real code starts them). It is
    // the point where error recovery resumes, and it lets any identifier at column 0 start a
    // command the grammar does not know (`user_command`). Commands elsewhere (indented, after
    // `… in`) need no start token.
    source_file: $ => seq(
      optional(choice(
        alias($._user_command_rest, $.user_command),
        $._header_command,
        $._hash_command,
      )),
      repeat(choice(
        $._command,
        seq($._command_start, choice($._command, $._hash_command, $._header_command, $.user_command)),
      )),
    ),

    // `prelude` and `module` head a file (Lean's `Module.header`): elsewhere they are words
    // (`acc.insert module`), so they are taken only at column 0. So is Batteries' `alias`
    // command, whose keyword is an identifier in a file that does not import it.
    _header_command: $ => choice($.prelude, $.module, alias($._alias_declaration, $.declaration)),

    // A command the grammar does not know (`problem foo : P := by …`, `World "x"`, `alias`,
    // a project's own `syntax … : command`): its head identifier and term parts, up to the
    // scanner's `_command_end` before the next column-0 command or comment.
    user_command: $ => seq(
      optional(field('attributes', $.attributes)),
      repeat(field('modifier', $.modifier)),
      $._user_command_rest,
    ),

    // (a project's command may begin with a token such as `%example`)
    _user_command_rest: $ => seq(
      field('head', choice($.identifier, $.operator)),
      repeat($._user_command_part),
      $._command_end,
    ),

    // Reserved words lose their force here: `snip end` is one command.
    _user_command_part: $ => reserved('soup', choice(
      $.identifier, // listed here (not only through `_term_part`) for the reserved context
      $._modifier_word,
      alias('unsafe', $.identifier),
      $._term_part,
      $._comma_tok,
      $._bar_tok,
      ':=', ';', '=>', 'with', '::',
    )),

    // -----------------------------------------------------------------------
    // Commands
    // -----------------------------------------------------------------------

    _command: $ => choice(
      $.declaration,
      $.import,
      $.namespace,
      $.section,
      $.end,
      $.open,
      $.export,
      $.variable,
      $.universe,
      $.set_option,
      $.attribute_command,
      $.syntax_command,
      $.deriving_instance,
      $.mutual,
      $.omit,
      $.include,
    ),

    prelude: $ => 'prelude',

    module: $ => seq(repeat(field('modifier', $.modifier)), 'module'),

    import: $ => seq(
      repeat(field('modifier', $.modifier)),
      'import',
      optional('all'),
      field('module', $.identifier),
    ),

    namespace: $ => seq('namespace', field('name', $.identifier)),

    section: $ => seq(
      optional(field('attributes', $.attributes)),
      repeat(field('modifier', $.modifier)),
      'section',
      optional(field('name', $.identifier)),
    ),

    end: $ => prec.right(seq('end', optional(field('name', $.identifier)))),

    // After `… in` at the end of a line, the command may be one the grammar does not know
    // (`include h in` / `problem foo : P := …`): it starts at column 0 like any command.
    _in_command: $ => seq('in', choice(
      field('command', $._command),
      field('command', $._hash_command),
      seq($._command_start, field('command', choice($._command, $._hash_command, $.user_command))),
    )),

    open: $ => prec.right(seq(
      'open',
      optional(alias('private', $.modifier)),
      repeat1(choice(
        $.identifier,
        alias('scoped', $.identifier),
        'from', // Batteries' `open private n₁ n₂ from M`
        $.parens,
        $.operator,
        $._more_names,
      )),
      optional($._in_command),
    )),

    export: $ => prec.right(seq(
      'export',
      repeat1(choice($.identifier, $.parens, $._more_names)),
    )),

    variable: $ => prec.right(seq(
      'variable',
      repeat1(choice($._binder, $._more_names)),
      optional($._in_command),
    )),

    omit: $ => prec.right(seq(
      'omit',
      repeat1(choice($._binder, $._more_names)),
      optional($._in_command),
    )),

    include: $ => prec.right(seq(
      'include',
      repeat1(choice($._binder, $._more_names)),
      optional($._in_command),
    )),

    universe: $ => prec.right(seq('universe', repeat1(choice($.identifier, $._more_names)))),

    set_option: $ => prec.right(seq(
      'set_option',
      field('name', $.identifier),
      field('value', $._option_value),
      optional($._in_command),
    )),

    _option_value: $ => choice($.identifier, $.number, $.string),

    // Lean reads `#word` as a command keyword only where a command can start; where a term can
    // go on it is a term (a notation: `#x`, `#s` for a cardinality, `#A / #B`). So a `#word`
    // command follows the scanner's `_command_start`, which it emits before a `#word` that
    // starts a line (at any column) unless the line above ended with an operator or a `,`
    // (`(#x : T) =` / `#x := rfl`), or follows `… in`, or begins the file. In the middle of a
    // line `#` is an operator.
    _hash_command: $ => choice($.hash_command, $.exit_command, $.verso_document),

    hash_command: $ => prec.right(seq(
      field('command', $.hash_keyword),
      // a project's `#cmd` may take `in` inside its argument (`#html <b>Lean in JSX</b>`);
      // `in` followed by a command is the wrapper
      repeat(choice($._term_part, $._comma_tok, prec(-1, 'in'))),
      optional($._in_command),
    )),

    hash_keyword: $ => /#[a-zA-Z_][a-zA-Z_0-9]*/,

    exit_command: $ => seq('#exit', optional($.exit_tail)),

    // Verso documents (Lean's documentation system, `Verso.Doc.Concrete`): after
    // `#doc (genre) "title" =>` (a command, or a term) Verso's parser reads the rest of the file,
    // and `#docs (genre) name "title" :=` is followed by markup between two fences of colons.
    // The markup is Verso's, not Lean's: one leaf.
    verso_document: $ => choice(
      seq(
        field('command', alias('#doc', $.hash_keyword)),
        $.parens,
        $.string,
        '=>',
        optional(field('body', alias($.exit_tail, $.verso_markup))),
      ),
      seq(
        field('command', alias('#docs', $.hash_keyword)),
        $.parens,
        $.identifier,
        $.string,
        ':=',
        field('body', alias($._verso_fenced, $.verso_markup)),
      ),
    ),

    attribute_command: $ => prec.right(seq(
      'attribute',
      '[',
      sep1($._comma_tok, $.attribute),
      ']',
      // Lean's `many1 ident`: the command cannot end before a name, which may sit on the next
      // line at any column (`attribute [blueprint …]` / `Quasicategory₂`)
      repeat1(choice($.identifier, $._more_names)),
    )),

    deriving_instance: $ => seq(
      'deriving',
      'instance',
      sep1($._comma_tok, $.identifier),
      'for',
      sep1($._comma_tok, $.identifier),
    ),

    mutual: $ => seq(
      'mutual',
      repeat(seq(
        optional($._command_start),
        choice($.declaration, $.set_option, $.open, $.variable),
      )),
      optional($._command_start),
      'end',
    ),

    // Notation / macro / syntax / elab commands are kept opaque: a flat soup
    // of tokens and balanced groups.
    syntax_command: $ => prec.right(seq(
      optional(field('attributes', $.attributes)),
      repeat(field('modifier', $.modifier)),
      field('keyword', alias(choice(...SYNTAX_KW), $.syntax_keyword)),
      repeat($._soup_item),
    )),

    // -----------------------------------------------------------------------
    // Declarations
    // -----------------------------------------------------------------------

    // A command start may follow (`@[simp]` on its own line, the command on the next).
    attributes: $ => seq('@[', sep1($._comma_tok, $.attribute), ']', optional($._command_start)),

    attribute: $ => repeat1($._attr_item),

    _attr_item: $ => reserved('soup', choice(
      $.identifier,
      $.dot_identifier,
      $.number,
      $.string,
      $.operator,
      ':', ':=', '=>',
      alias($._soup_parens, $.parens),
      alias($._soup_brackets, $.brackets),
      alias($._soup_braces, $.braces),
    )),

    // `scoped[NS]` (Mathlib): the declaration or notation is scoped to namespace NS
    modifier: $ => choice(...MODIFIERS, seq('scoped', token.immediate('['), $.identifier, ']')),

    declaration: $ => prec.right(seq(
      optional(field('attributes', $.attributes)),
      repeat(field('modifier', $.modifier)),
      choice(
        seq(
          field('kind', alias($._kind_named, $.declaration_kind)),
          field('name', $.identifier),
          optional($.universe_params),
          repeat($._binder),
          optional($._type_ascription),
          optional($._def_body),
        ),
        seq(
          field('kind', alias('example', $.declaration_kind)),
          repeat($._binder),
          optional($._type_ascription),
          optional($._def_body),
        ),
        seq(
          field('kind', alias('instance', $.declaration_kind)),
          optional($.instance_priority),
          optional(seq(field('name', $.identifier), repeat(choice($.identifier, $.universe_params)))),
          repeat($._bracket_binder),
          $._type_ascription,
          optional($._def_body),
        ),
        seq(
          field('kind', alias($._kind_structure, $.declaration_kind)),
          field('name', $.identifier),
          optional($.universe_params),
          repeat($._binder),
          optional(choice($.extends, $._type_ascription)),
          optional(field('body', $.structure_body)),
        ),
        seq(
          field('kind', alias($._kind_inductive, $.declaration_kind)),
          field('name', $.identifier),
          optional($.universe_params),
          repeat($._binder),
          optional($._type_ascription),
          optional(field('body', $.inductive_body)),
        ),
      ),
      repeat($._decl_suffix),
    )),

    // Batteries' `alias foo := bar` and `alias ⟨mp, mpr⟩ := iff`
    _alias_declaration: $ => prec.right(seq(
      optional(field('attributes', $.attributes)),
      repeat(field('modifier', $.modifier)),
      field('kind', alias('alias', $.declaration_kind)),
      choice(field('name', $.identifier), $.anonymous_constructor),
      optional($._def_body),
    )),

    _kind_named: $ => choice(...DECL_KW_NAMED),
    _kind_structure: $ => choice('structure', 'class'),
    _kind_inductive: $ => choice('inductive', 'coinductive', seq('class', 'inductive')),

    universe_params: $ => seq('.{', sep1($._comma_tok, $.identifier), '}'),

    instance_priority: $ => seq('(', 'priority', ':=', repeat1($._term_part), ')'),

    _type_ascription: $ => seq(':', field('type', $.type)),

    // `;` ends a `let x := v;` / `have` inside the type
    // `,` stands for the binder notations a project declares (`𝔼 x ∈ s, f x`, `⨍ t in s, f t`).
    type: $ => prec.right(repeat1(choice($._term_part, ';', $._comma_tok))),

    _field_type: $ => prec.right(seq($._term_part, repeat(choice($._term_part, ';')))),

    _binder: $ => choice($._bracket_binder, $.identifier),

    _bracket_binder: $ => choice(
      $.explicit_binder,
      $.implicit_binder,
      $.instance_binder,
      $.strict_implicit_binder,
    ),

    explicit_binder: $ => seq('(', optional($._group_content), ')'),
    implicit_binder: $ => seq('{', optional($._group_content), '}'),
    instance_binder: $ => seq('[', optional($._group_content), ']'),
    strict_implicit_binder: $ => seq('⦃', optional($._group_content), '⦄'),

    extends: $ => seq('extends', sep1($._comma_tok, repeat1($._term_part))),

    _def_body: $ => choice(
      seq(
        field('body', choice($.value, $.equations)),
        optional($.where_decls),
      ),
      // Lean's `whereStructInst`: the fields, then `where` and local definitions
      seq(field('body', $.where_fields), optional($.where_decls)),
    ),

    // `:= term`
    // A term-level `open … in` / `set_option … in` is taken only at the start: later, the
    // word starts the next command.
    // A Verso `#doc` term (`def d := #doc (genre) "title" =>`) takes the rest of the file.
    value: $ => seq(':=', choice(
      seq(optional('unsafe'), repeat1(choice($._term_part, ';', $._comma_tok))),
      $.verso_document,
    )),

    // `| pat => term` ...
    equations: $ => repeat1($.alternative),

    // `where` followed by fields / local definitions (layout block)
    where_fields: $ => seq(
      'where',
      $._where_start,
      optional($._fields),
      $._layout_end,
    ),

    // Lean's `structCtor` may sit on the `where` line (`where mk ::`); the fields' column is
    // that of the first field (`manyIndent`), so the block opens after the constructor.
    structure_body: $ => seq(
      'where',
      optional($.constructor_name),
      $._where_start,
      optional(seq(
        optional(seq($.constructor_name, optional($._layout_sep))),
        optional($._fields),
      )),
      $._layout_end,
    ),

    // Preferred over a field `private mk : :` would otherwise also read as.
    constructor_name: $ => prec.dynamic(1, seq(repeat($.modifier), $.identifier, '::')),

    _fields: $ => seq(
      $.field,
      repeat(seq(choice($._layout_sep, ';', seq(';', $._layout_sep)), $.field)),
      optional(';'),
    ),

    field: $ => seq(
      repeat1(choice($.identifier, $._bracket_binder, $.attributes, $.modifier)),
      // like a declaration's type, a field's type may hold `have h := v; t`
      optional(seq(':', $._field_type)),
      optional(choice(seq(':=', $._field_value), repeat1($.alternative))),
    ),

    // like a tactic's arguments: after a term-level `have` / `let` value, `;` is the term's
    // (`aux h := let ⟨a, h⟩ := f h; ⟨a, h⟩`), not the separator of fields
    // A value may be `private` (the module system keeps it out of the module's interface:
    // `toJson := private fun …`) and may start with `open … in` / `set_option … in`.
    _field_value: $ => seq(
      optional(alias('private', $.modifier)),
      optional('unsafe'),
      prec.right(choice(
        seq(repeat1($._term_part_nh), optional($._have_tail)),
        $._have_tail,
      )),
    ),

    // `dbg_trace e; body` and `assert! c; body` take `;` too (Lean's `dbgTrace`, `assert`)
    _have_tail: $ => prec.right(seq(
      choice($.have, alias('dbg_trace', $.identifier), alias('assert!', $.identifier)),
      repeat(choice($._term_part, ';')),
    )),

    inductive_body: $ => choice(
      seq('where', repeat($.constructor)),
      repeat1($.constructor),
    ),

    // Lean reads a constructor's name with `rawIdent`: a keyword is a name there (`| structure`)
    constructor: $ => seq(
      $._bar_tok,
      repeat($.attributes),
      repeat($.modifier),
      field('name', reserved('soup', $.identifier)),
      repeat($._binder),
      optional(seq(':', $._term)),
    ),

    _decl_suffix: $ => $.deriving_clause,

    deriving_clause: $ => seq('deriving', sep1($._comma_tok, $.identifier)),

    // `termination_by` / `decreasing_by` are parts of the preceding term (so
    // that they also work after `let rec` and `where` definitions); the
    // measure follows `termination_by` as sibling parts.
    termination_by: $ => prec.right(seq(
      choice('termination_by', 'termination_by?'),
      optional('structural'),
      repeat($.identifier),
      optional('=>'),
    )),

    decreasing_by: $ => seq('decreasing_by', $._tactic_block),

    where_decls: $ => seq(
      'where',
      $._where_start,
      optional($._fields),
      $._layout_end,
    ),

    // -----------------------------------------------------------------------
    // Terms
    // -----------------------------------------------------------------------

    // After a term-level `have` / `let` / `dbg_trace` value, `;` is the term's (Lean's
    // `optSemicolon`): `| n => let a := f n; g a`. (A term takes any `;`: telling the ones
    // after a `let` apart costs hundreds of parse states.)
    _term: $ => prec.right(repeat1(choice($._term_part, ';'))),

    // Modifier words that are not reserved (`unsafe`, `partial`, `meta`…) could start the
    // next command after any item of a soup; inside one they are words (term `unsafe e`).
    // (`unsafe` is a term part of its own.)
    _modifier_word: $ => alias(choice(...MODIFIERS.filter(m => !RESERVED.includes(m) && m !== 'unsafe')), $.identifier),

    _term_part: $ => choice($._term_part_nh, $.have),

    // every term part but `have`
    _term_part_nh: $ => choice(
      $._atom,
      $._group,
      $.operator,
      $.fun,
      $.binder_notation,
      $.by_block,
      $.termination_by,
      $.decreasing_by,
      $._term_keyword,
      ':',
      alias($._abs_bar, $.operator),
      $.match,
      $.do_block,
      $.calc,
      $.try,
      $.catch,
      $.finally,
      $._term_prefix,
      $._pipe_proj,
      // Bracket notations (`⁅a, b⁆`, `⟦x⟧`, `⌊x⌋₊`, `F⟮α, β⟯`: Unicode's paired brackets that
      // Lean leaves to notations) are flat: the brackets are operators, and a `,` inside them
      // is the notation's (the scanner counts them), not one that ends a tactic block.
      alias($._notation_open, $.operator),
      alias($._notation_close, $.operator),
      alias($._notation_comma, ','),
    ),

    _atom: $ => choice(
      $.identifier,
      $.dot_identifier,
      $.number,
      $.string,
      $.interpolated_string,
      $.raw_string,
      $.char,
      $.name_literal,
      $.syntax_quotation,
      $.sorry,
      // HTML written in a term (doc-gen4's and ProofWidgets' JSX, Verso's `{{ … }}`):
      // `<tag attr="v" attr={e}>` children `</tag>` or `<tag … />`, read whole by the scanner.
      // Lean reads tag and attribute names with `rawIdent` and the text between tags raw, so
      // neither keywords nor quotes mean anything there.
      $.jsx_element,
    ),

    // Lean's `pipeProj` (`e |>.f a b`) is a trailing parser at `minPrec`: the term it makes
    // can be the left operand of no binary operator above that precedence (`trailingNode`'s
    // `checkLhsPrec`), so `e |>.f a ≤ b` ends the term before `≤`, and no construct around a
    // term takes `≤` next (Lean: "unexpected token '≤'; expected command"). Hidden: the
    // tree stays flat. After the field and after each argument that is a single token the
    // scanner (`_pipe_check`) turns a binary operator into an error; a bracketed argument
    // ends the check (judging what follows it would cost some 2,000 parse states), and so
    // does the end of the line (see the scanner).
    _pipe_proj: $ => prec.right(seq(
      alias('|>.', $.operator),
      // (without a field it is Lean's `pipeCompletion`)
      optional(seq(
        choice($.identifier, $.number),
        repeat(choice($.identifier, $.dot_identifier, $.number, $.string, $.char)),
      )),
      optional($._pipe_check),
    )),

    _group: $ => choice(
      $.parens,
      $.brackets,
      $.braces,
      $.anonymous_constructor,
      $.strict_braces,
      $.assumption,
      $.double_angle,
    ),

    parens: $ => seq('(', optional($._group_content), ')'),
    brackets: $ => seq('[', optional($._group_content), ']'),
    braces: $ => seq('{', optional($._group_content), '}'),
    anonymous_constructor: $ => seq('⟨', optional($._group_content), '⟩'),
    strict_braces: $ => seq('⦃', optional($._group_content), '⦄'),
    assumption: $ => seq('‹', optional($._group_content), '›'),
    double_angle: $ => seq('⟪', optional($._group_content), '⟫'),

    _group_content: $ => repeat1(choice(
      $._term_part,
      // `[local X]`, `[scoped X]`: attribute kinds in a command's argument
      alias(choice('local', 'scoped'), $.identifier),
      $._comma_tok,
      $._bar_tok,
      ':=',
      ';',
      '=>',
      'with',
      'unsafe',
    )),

    // `open Foo in t` / `set_option o v in t` inside a term: like a binder head, the term
    // follows as sibling parts.
    // The scanner marks them (`_term_prefix_start`) where a term, not a command, follows `in`.
    _term_prefix: $ => seq($._term_prefix_start, choice(
      alias($._term_set_option, $.set_option),
      alias($._term_open, $.open),
    )),

    _term_open: $ => seq(
      'open',
      repeat1(choice($.identifier, alias('scoped', $.identifier), $.parens)),
      'in',
    ),

    // `(set_option opt v in t)`: only inside a group, so that a term can never
    // swallow a following `set_option … in` command.  Like a binder head, the
    // term follows as sibling parts.
    _term_set_option: $ => seq(
      'set_option',
      field('name', $.identifier),
      field('value', $._option_value),
      'in',
    ),

    // Binder heads: a term is flat, so `fun x =>`, `∀ x ∈ s,` and
    // `have h : T :=` are parts of the sequence and scope over the parts that
    // follow them (up to the end of the enclosing term or group).
    fun: $ => prec.right(seq(
      choice('fun', 'λ'),
      choice(
        seq(repeat1($._term_part), choice('=>', '↦')),
        repeat1($.alternative),
      ),
    )),

    // The comma is optional: projects declare binder symbols as plain prefix operators too
    // (`∀' φ`, `∃' φ`).
    binder_notation: $ => prec.right(seq(
      field('binder', $.binder_symbol),
      repeat1($._term_part),
      optional($._comma_tok),
    )),

    by_block: $ => seq('by', $._tactic_block),

    have: $ => prec.right(seq(
      choice('have', 'haveI', 'let', 'letI'),
      repeat($._term_part),
      // Lean's `leftArrow` is `←` or `<-`
      choice(':=', seq(choice('←', '<-'), optional($._arrow_do_item)), repeat1($.alternative)),
    )),

    // Lean's `doIdDecl` / `doPatDecl` / `doReassignArrow` take a `do` element after the
    // arrow, so `let y ← match x with | some d => …` has `do` alternatives: a let-else
    // `| …` inside one continues that alternative's sequence.
    _arrow_do_item: $ => prec(2, choice($.do_match, $.do_if)),

    // `then` is no term of its own: it belongs to an `if` (Lean's `termIf`: `if c then t else
    // e`), so a term inside the condition stops before it (`if xs.all fun | 0 => true | _ =>
    // false then`: the alternative's term does not take the `then`). Hidden: the tree stays
    // flat, `if`, the condition's parts and `then` are parts of the enclosing term.
    _term_keyword: $ => choice('show', 'from', 'suffices', $._if_then, $._else_tok),

    _if_then: $ => seq('if', repeat1($._term_part), $._then_tok),

    match: $ => prec.right(seq(
      'match',
      repeat1(choice($._term_part, $._comma_tok)),
      'with',
      repeat1($.alternative),
    )),

    alternative: $ => prec.right(seq(
      $._bar_tok,
      repeat1(choice($._term_part, $._comma_tok, $._bar_tok)),
      '=>',
      $._term,
    )),

    do_block: $ => seq('do', $._do_seq),

    // `try` doSeq (`catch` x => doSeq)* (`finally` doSeq)? – a term (Lean's `termTry`) and a
    // `do` element. Flat, like binder heads: `try`, each `catch` and `finally` are sibling
    // parts with their `do` sequences; `catch` / `finally` may sit at the column of `try`.
    // (the scanner marks the block of a `try`: a `catch` / `finally` that follows it, at any
    // column, continues the `try` — Lean checks no column there)
    try: $ => seq('try', $._try_block, $._do_seq),

    // Lean's `doCatch`: `catch` binderIdent `=>` doSeq (the optional `: type` is not taken:
    // it costs many parse states and no file here uses it)
    // or `catch` followed by `| pat => doSeq` alternatives (Lean's `doCatchMatch`)
    catch: $ => prec.right(seq('catch', choice(
      seq($.identifier, '=>', $._do_seq),
      $._do_alternatives,
    ))),

    finally: $ => seq('finally', $._do_seq),

    _do_seq: $ => seq(
      $._layout_start,
      $._do_item,
      repeat(seq(choice($._layout_sep, ';', seq(';', $._layout_sep)), $._do_item)),
      optional(';'),
      $._layout_end,
    ),

    _do_item: $ => choice($.do_element, $.do_if, $.do_match),

    // (`x ← match …`: see `_arrow_do_item`)
    do_element: $ => prec.right(seq(
      repeat1(choice($._term_part, ':=', '=>', '←', '<-', $._comma_tok, $._bar_tok, 'unsafe')),
      optional(prec(2, seq(choice('←', '<-'), $._arrow_do_item))),
    )),

    // `if` / `match` at the start of a `do` element take `do` sequences.
    do_if: $ => prec.right(1, seq(
      'if',
      repeat1($._term_part),
      $._then_tok,
      $._do_seq,
      optional(seq($._else_tok, $._do_seq)),
    )),

    do_match: $ => prec.right(1, seq(
      'match',
      repeat1(choice($._term_part, $._comma_tok)),
      'with',
      $._do_alternatives,
    )),

    do_alternative: $ => seq(
      $._bar_tok,
      repeat1(choice($._term_part, $._comma_tok, $._bar_tok)),
      '=>',
      $._do_seq,
    ),

    // A `|` after an alternative starts the next one, also where the `match` is inside a `do`
    // element that could take the `|` (`let y ← match x with | a => … | b => …`).
    _do_alternatives: $ => prec.right(-1, repeat1($.do_alternative)),

    calc: $ => seq('calc', $._calc_steps),

    _calc_steps: $ => seq(
      $._calc_start,
      sep1($._layout_sep, $.calc_step),
      $._layout_end,
      optional(seq(
        $._calc_steps_start,
        sep1($._layout_sep, $.calc_step),
        $._layout_end,
      )),
    ),

    // (`_calc_proof` tells the scanner that the first step has its proof: a more indented
    // `_ … := …` line is then an argument of the proof term, not the next step)
    calc_step: $ => seq($._term, optional(seq(':=', $._calc_proof, $._term))),

    sorry: $ => 'sorry',

    admit: $ => 'admit',

    // -----------------------------------------------------------------------
    // Tactics
    // -----------------------------------------------------------------------

    // A tactic block opens with its own token: only there does a tactic word on a more indented
    // line start a new item (Lean's `checkColGe`).
    _tactic_block: $ => seq($._tactic_start, $._tactic_seq, $._layout_end),

    _tactic_seq: $ => seq(
      $.tactic,
      repeat(seq($._tactic_sep, $.tactic)),
      optional($._semicolons),
    ),

    _semicolons: $ => prec.right(repeat1(';')),

    _tactic_sep: $ => choice(
      $._layout_sep,
      seq($._semicolons, optional($._layout_sep)),
    ),

    tactic: $ => choice(
      // generic tactic: `name args* (with ...)? (=> tactics)?`
      prec.right(seq(
        field('head', $.identifier),
        repeat($._tactic_arg_nh),
        // a term-level `have` / `let` takes the `;` after its value (Lean's `optSemicolon`):
        // `exact have h := e; f h`
        optional(seq($.have, repeat(choice($._tactic_arg, ';')))),
        // `let f : T` / `have h : T` followed by `| pat => rhs` equations (Lean's `letEqnsDecl`)
        optional(choice($.with_clause, repeat1($.alternative))),
        optional(seq('=>', $._tactic_block)),
      )),
      field('head', $.sorry),
      field('head', $.admit),
      // a hole as the tactic body of an alternative (`| inr y => ?_`, Lean's `matchRhs`)
      seq(field('head', alias('?', $.operator)), $.identifier),
      // focusing bullet
      seq(field('head', choice('·', '.')), $._tactic_block),
      // combinators taking a tactic sequence
      seq(
        field('head', alias(choice('try', 'all_goals', 'any_goals', 'repeat', "repeat'", 'focus',
          'classical', 'with_reducible', 'fail_if_success', 'success_if_fail'), $.identifier)),
        $._tactic_block,
      ),
      seq(
        field('head', alias('iterate', $.identifier)),
        $.number,
        $._tactic_block,
      ),
      // Lean fixes the alternatives' column at the first `|` (`withPosition … colGe`), which
      // may sit left of the block `first` is in (`all_goals first` with `| …` lines below).
      seq(
        field('head', alias('first', $.identifier)),
        $._alts_start,
        repeat1(seq($._bar_tok, $._tactic_block)),
        $._layout_end,
      ),
      prec.left(1, seq($.tactic, field('head', '<;>'), $.tactic)),
      seq(field('head', '('), $._tactic_block, ')'),
      seq(field('head', '{'), optional($._tactic_block), '}'),
      seq(
        field('head', '['),
        optional($._semicolons),
        optional(seq($.tactic, repeat(seq($._semicolons, $.tactic)), optional($._semicolons))),
        ']',
      ),
      seq(field('head', alias('calc', $.identifier)), $._calc_steps),
      seq(
        field('head', alias('match', $.identifier)),
        repeat1(choice($._term_part, $._comma_tok)),
        'with',
        repeat1($.tactic_alternative),
      ),
      prec.right(seq(
        field('head', alias('if', $.identifier)),
        repeat1($._term_part),
        $._then_tok,
        $._tactic_block,
        optional(seq($._else_tok, $._tactic_block)),
      )),
      // rcases patterns may contain `|`
      prec.right(seq(
        field('head', alias(choice('obtain', 'rcases', 'rintro', 'rintros'), $.identifier)),
        repeat(choice($._term_part, $._tactic_assign, $._bar_tok, $._comma_tok)),
        optional($.with_clause),
      )),
      // comma separated witnesses
      prec.right(seq(
        field('head', alias(choice('use', 'use!', 'exists', 'existsi', 'refine_lift',
          "induction'", "cases'", 'fin_cases', 'interval_cases', 'induction', 'cases',
          'generalize'), $.identifier)),
        repeat(choice($._term_part, $._comma_tok, $._tactic_assign)),
        optional(alias($._with_alts, $.with_clause)),
      )),
      seq(field('head', alias('open', $.identifier)), repeat1(choice($.identifier, alias('scoped', $.identifier))), 'in', $.tactic),
      seq(field('head', alias('set_option', $.identifier)), $.identifier, $._option_value, 'in', $.tactic),
    ),

    _tactic_arg: $ => choice($._tactic_arg_nh, $.have),

    // A project's tactic may take `|` (`my_tac a | b`); the scanner tells it from the `|` of an
    // alternative, which has a `=>` after it on the line.
    _tactic_arg_nh: $ => choice(
      $._term_part_nh,
      $._tactic_assign,
      'unsafe',
      alias($._arg_bar, '|'),
    ),

    // A tactic never ends at `:=`: the term that follows may start on the next line at the
    // block's column (`let F : T :=` / `⟨…⟩` below it), as Lean's term parser does not check
    // the column there.
    _tactic_assign: $ => seq(':=', $._term_part),

    with_clause: $ => seq(
      'with',
      choice(
        repeat1($.tactic_alternative),
        seq(
          $._term_part,
          repeat(choice($._term_part, $._bar_tok, $._comma_tok)),
        ),
      ),
    ),

    // `induction … with` / `cases … with`: names (`cases' h with x y`), or an optional tactic
    // for every case then the alternatives (Lean's `inductionAlts`:
    // `with simp at h | nil => … | cons a l ih => …`)
    _with_alts: $ => seq(
      'with',
      repeat(choice($._atom, $._group, $.operator)),
      repeat($.tactic_alternative),
    ),

    // Lean's `inductionAlt`: `inductionAltLHS+ (" => " tacticSeq)?` — without `=>` it only
    // names the goal's variables (`induction n using r with | _ m ih`) and the proof goes on.
    tactic_alternative: $ => prec.right(seq(
      $._bar_tok,
      repeat1(choice($._term_part, $._comma_tok, $._bar_tok)),
      optional(seq('=>', $._tactic_block)),
    )),

    // -----------------------------------------------------------------------
    // Opaque token soup (syntax quotations, macro/notation commands)
    // -----------------------------------------------------------------------

    _soup_item: $ => reserved('soup', choice(
      // a term's `open … in` (in a `macro_rules` / `elab_rules` right-hand side)
      $._term_prefix,
      // a project's token of three or more backquotes in a quotation (Verso's fenced code
      // blocks: `` `(block|```$name $args* | $contents```) ``)
      alias(token(/\x60\x60\x60+/), $.operator),
      $.identifier,
      $._modifier_word,
      alias('unsafe', $.identifier),
      $.dot_identifier,
      $.number,
      $.string,
      $.interpolated_string,
      $.raw_string,
      $.char,
      $.name_literal,
      $.syntax_quotation,
      $.operator,
      alias($._binder_sym, $.operator),
      $._comma_tok,
      $._bar_tok,
      ':', ':=', ';', '=>', '::',
      alias($._soup_parens, $.parens),
      alias($._soup_brackets, $.brackets),
      alias($._soup_braces, $.braces),
      alias($._soup_angle, $.anonymous_constructor),
      alias($._soup_strict, $.strict_braces),
      alias($._soup_assumption, $.assumption),
      alias($._soup_double_angle, $.double_angle),
      alias('λ', $.operator),
    )),

    // Inside brackets a column-0 command word is quoted text (`` `(attribute [simp] x) ``): the
    // scanner's command start there is only a marker, followed by the word.
    _soup_inner: $ => choice($._soup_item, seq($._command_start, $._soup_item)),

    _soup_parens: $ => seq('(', repeat($._soup_inner), ')'),
    _soup_brackets: $ => seq('[', repeat($._soup_inner), ']'),
    _soup_braces: $ => seq('{', repeat($._soup_inner), '}'),
    _soup_angle: $ => seq('⟨', repeat($._soup_inner), '⟩'),
    _soup_strict: $ => seq('⦃', repeat($._soup_inner), '⦄'),
    _soup_assumption: $ => seq('‹', repeat($._soup_inner), '›'),
    _soup_double_angle: $ => seq('⟪', repeat($._soup_inner), '⟫'),

    // also a project's own quotation `[Cli| … ] (a `syntax "`[Cli|" … "]"`)
    syntax_quotation: $ => choice(
      seq(/``?\((?:[A-Za-z_][A-Za-z_0-9.]*\|)?/, repeat($._soup_inner), ')'),
      seq(/`\[[A-Za-z_][A-Za-z_0-9.]*\|/, repeat($._soup_inner), ']'),
    ),

    // -----------------------------------------------------------------------
    // Tokens
    // -----------------------------------------------------------------------

    binder_symbol: $ => choice($._binder_sym, 'exists', 'forall'),

    _binder_sym: $ => token(new RustRegex(String.raw`[${NARY}][${NARY_MOD}]*`)),

    _comma_tok: $ => alias($._comma, ','),
    _then_tok: $ => alias($._then, 'then'),
    _else_tok: $ => alias($._else, 'else'),
    _bar_tok: $ => alias($._bar, '|'),

    identifier: $ => token(new RustRegex(IDENT)),

    dot_identifier: $ => token(new RustRegex(String.raw`\.(?:${ID_PART}|[0-9]+)(?:\.(?:${ID_PART}|[0-9]+))*`)),

    // Lean's tokenizer takes the longest *declared* token, not any run of symbols: `=>?_` is
    // `=>` then `?_`, so a run never extends `=>`. A backslash or `%` right before a word is a
    // token of its own (a project's `\\end{…}`, `%example`): Lean reads no identifier after them.
    operator: $ => token(choice(
      // (a run of symbols without `=>` in it; a run of dots is Lean's `..` or `...`, so
      // `.text ..=> e` is `..` then `=>`)
      new RustRegex(String.raw`(?:[^${SYM_EXCLUDED}=.]|=+[^${SYM_EXCLUDED}=>])(?:[^${SYM_EXCLUDED}=]|=+[^${SYM_EXCLUDED}=>])*=*'*`),
      new RustRegex(String.raw`=+'*`),
      /\.+/,
      // the opener of a project's quotation closed by `>` (Verso's `` `<low| … > ``): the
      // content that follows is flat, the `>` an operator
      /\x60<[A-Za-z_][A-Za-z_0-9.]*\|/,
      /[\\%][A-Za-z_][A-Za-z_0-9]*/,
      '::',
      "''",
      "'",
      // Mathlib's `notation "λ_" => leftUnitor`: a longer token than `λ`, as in Lean's token
      // table (maximal munch), so `(λ_ X).inv` is no `fun`
      'λ_',
    )),

    number: $ => token(choice(
      /[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/,
      /0[xX][0-9a-fA-F_]+/,
      /0[bB][01_]+/,
      /0[oO][0-7_]+/,
    )),

    string: $ => token(seq('"', repeat(choice(/[^"\\]+/, /\\[\s\S]/)), '"')),

    interpolated_string: $ => seq(
      choice('s!"', 'm!"', 'f!"'),
      repeat(choice(
        alias($._interp_content, $.string_content),
        $.interpolation,
      )),
      token.immediate('"'),
    ),

    interpolation: $ => seq(token.immediate('{'), optional($._group_content), '}'),

    char: $ => token(/'([^'\\\n]|\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[^\n]))'/),

    name_literal: $ => token(new RustRegex(String.raw`\x60\x60?${IDENT}`)),

    // `--` always begins a comment in Lean; the precedence wins the tie with an operator run
    // when nothing follows it on the line (`--` alone, `trivial --`).
    line_comment: $ => token(prec(1, seq('--', /[^\n]*/))),
  },
});
