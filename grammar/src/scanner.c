/*
 * External scanner for the Lean 4 tree-sitter grammar (math-forge).
 *
 * Responsibilities (only what a grammar rule cannot express):
 *   - layout: a stack of block columns.  `_layout_start` opens a block at the
 *     column of the next real token, `_layout_sep` separates items that start
 *     at the block column, `_layout_end` closes the innermost block on a
 *     dedent, on a closing bracket / `,` / `|` / `then` / `else` that the block
 *     cannot consume, at a column-0 command or comment, and at end of file;
 *   - `,` and the alternative bar `|` (so that the scanner can tell whether
 *     they belong to the current block or close it);
 *   - nested block comments `/- -/`, doc comments `/-- -/`, module docs
 *     `/-! -/`;
 *   - the literal text inside interpolated strings;
 *   - everything after `#exit`.
 *
 * All layout tokens are zero-width.
 */

#include "tree_sitter/parser.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum TokenType {
  LAYOUT_START,
  LAYOUT_SEP,
  LAYOUT_END,
  COMMA,
  BAR,
  BLOCK_COMMENT,
  DOC_COMMENT,
  MODULE_DOC,
  INTERP_CONTENT,
  EXIT_TAIL,
  THEN,
  ELSE,
  CALC_START,
  ABS_BAR,
  CALC_STEPS_START,
  ALTS_START,
  ERROR_SENTINEL,
  COMMAND_START,
  COMMAND_END,
  TACTIC_START,
  COMMENT_GUARD,
  WHERE_START,
  OP_EOL,
  VERSO_FENCED,
  TERM_PREFIX_START,
  JSX_ELEMENT,
  NOTATION_OPEN,
  NOTATION_CLOSE,
  NOTATION_COMMA,
  ARG_BAR,
  TRY_BLOCK,
  PIPE_CHECK,
  CALC_PROOF,
  RAW_STRING,
  MORE_NAMES,
};

#define MAX_DEPTH 250

/* A run of equal block entries: blocks opened on one long line past column COL_MASK all have
 * the same entry, so the stack is kept (and serialized) as runs, whose number, not the depth,
 * is what each token pays for. A run is one word: the entry in the low RUN_SHIFT bits (an
 * entry has 24 bits: HAVE_FLAG is bit 23), the run's length minus 1 above them (at most
 * MAX_DEPTH - 1 = 249 fits the 8 bits left there). The state is restored before every scan,
 * so it is copied in and out as it is kept, with no decoding. */
typedef uint32_t Run;
#define RUN_SHIFT 24
#define ENTRY_MASK ((1u << RUN_SHIFT) - 1)

typedef struct {
  /* number of block entries (the sum of the runs' counts) */
  uint16_t len;
  uint16_t nruns;
  Run runs[MAX_DEPTH];
  /* number of pushes that did not fit (kept so pops stay balanced) */
  uint16_t overflow;
  /* the last external token emitted (BAR / THEN / ... ) */
  uint16_t last;
  /* how many bracket notations (`⁅`, `⟦`, `⌊`, …) are open */
  uint8_t notation_depth;
  /* What the next line break goes on with (EOL_* bits), serialized: a line that ended with an
   * operator or a `,`, or a term-level `let` / `have` line waiting for its body. It is set by
   * the token before the line break (the zero-width `_op_eol` or the `,`) and consumed by the
   * scans at the start of the next line, which always leave a token that clears it (see
   * `scan`), so no later line sees it. Kept in the state (not beside it) because tree-sitter
   * may restore any serialized state when it reparses an edited tree. */
  uint8_t eol;
  /* the column of the `let` / `have` line (EOL_LET), at most 255 */
  uint8_t eol_col;
  /* Not serialized: whether the runtime's byte column (see `column_here`) has been checked
   * against a line's indentation: 0 not yet, 1 agrees, -1 disagreed (never used again). */
  int8_t byte_column;
  /* Not serialized: an HTML element that failed to read up to this byte offset (0: none);
   * no element is tried again before it, so failed attempts cost linear time in all. */
  uint32_t jsx_failed_until;
  /* Not serialized: bytes [from, to) of one line where a search of `unmatched_then_else`
   * found no `then` / `else` (see there); 0, 0: none. */
  uint32_t then_free_from, then_free_to;
  /* Not serialized: the search that made the range ran out of budget (rather than reaching
   * the end of the line, a closing bracket or a comment). */
  bool then_free_budget;
  /* Not serialized, per scan (see `scan`): this scan is at the start of the line that `eol`
   * speaks of (1, 3 in error recovery), and whether it set `eol` itself. */
  uint8_t eol_scan;
  bool eol_set;
  /* Not serialized, per scan: the scan is at a `let` line of this column (0: none) */
  uint8_t let_line;
} Scanner;

/* `eol`: the line above ended with an operator or a `,` (Lean's binary operators take their
 * right operand at any column: a `#word` or a column-0 line goes on with the term) */
#define EOL_OP 1u
/* … and no layout block was open there: only then does a column-0 line go on with the term
 * (a block's operator at the end of a line may be no binary one, `simp at h ⊢`, and column 0
 * closes every block anyway) */
#define EOL_TOP 2u
/* a line of a command's term (no block open) started with `let` / `have` at column
 * `eol_col`: Lean's `let` takes its body after the value at any column left of its own (the
 * value's arguments must be right of it), a column-0 one too (`  let x := v` / `x * 2`) */
#define EOL_LET 4u
/* the scans at the start of the line are done: the next one moves past the line break */
#define EOL_CONSUME 8u


static inline void adv(TSLexer *lx) { lx->advance(lx, false); }
/* The lookahead is 0 at the end of input, so the call through the lexer is
 * needed only then (a NUL byte in the text is also 0). */
static inline bool at_end(TSLexer *lx) { return lx->lookahead == 0 && lx->eof(lx); }
static inline void skp(TSLexer *lx) { lx->advance(lx, true); }

/* Flags kept in the high bits of a block entry. */
#define CALC_FLAG 0x8000u /* first step of a `calc` */
#define BAR_FLAG 0x4000u  /* block opened right after a `|` */
#define THEN_FLAG 0x2000u /* block opened right after `then` */
#define STEPS_FLAG 0x1000u /* the `_ = … := …` steps of a `calc` */
#define ALTS_FLAG 0x0800u  /* the `| tac` alternatives of `first` */
#define TACTIC_FLAG 0x0400u /* a tactic block */
#define SAME_FLAG 0x0200u  /* a block opened on its opener's line (`next h => simp`) */
#define COL_MASK 0x01FFu
/* Flags above 16 bits (block entries are 32-bit). */
#define WHERE_FLAG 0x10000u   /* a command's `where` block whose first item is on the `where` line */

/* tree-sitter's runtime hands the scanner the TSLexer that begins its own lexer struct, right
 * before the current position: {bytes, row, byte column}. */
typedef struct {
  uint32_t bytes;
  uint32_t row;
  uint32_t column;
} RuntimePosition;

static inline const RuntimePosition *runtime_position(const TSLexer *lx) {
  return (const RuntimePosition *)(const void *)((const char *)lx + sizeof(TSLexer));
}

/* At a line start whose indentation is ASCII, the byte column must equal the indentation;
 * on the first line the byte column must equal the byte offset. */
static void check_byte_column(Scanner *s, const TSLexer *lx, bool line_start, uint32_t indent) {
  if (s->byte_column < 0) return;
  const RuntimePosition *p = runtime_position(lx);
  bool ok;
  if (line_start && indent > 0) ok = p->column == indent;
  else if (p->row == 0 && p->bytes > 0) ok = p->column == p->bytes;
  else return;
  s->byte_column = ok ? 1 : -1;
}

/* The column (in characters) of the lookahead, for a block opened mid-line. `get_column`
 * counts characters from the line start, which made long lines quadratic. A character is at
 * most 4 bytes, so a byte column past 4 × COL_MASK means a column past COL_MASK, where block
 * columns are clamped anyway; below it `get_column` costs at most 4 × COL_MASK steps. The
 * byte column is read only once it has been checked against a known column. */
static uint32_t column_here(Scanner *s, TSLexer *lx) {
  if (s->byte_column > 0 && runtime_position(lx)->column > 4u * COL_MASK) return COL_MASK;
  return lx->get_column(lx);
}
#define WHERE_BLOCK 0x100000u /* any `where` block */
#define PROOF_FLAG 0x400000u   /* the first step of a `calc` has its `:=` */
#define TRY_FLAG 0x200000u    /* the `do` sequence of a `try` */
/* a tactic block whose current item has a term-level `have` / `let` / `suffices` on a line of
 * its own, whose body may follow on a more indented line (see `TERM_WORDS`) */
#define HAVE_FLAG 0x800000u
/* `last` after the zero-width `_op_eol` that marked a `have` / `let` line (see `HAVE_FLAG`) */
#define HAVE_LINE 0x7FFDu
/* `last` after a `then` branch's block was closed (no token has this number) */
#define THEN_CLOSED 0x7FFCu
/* `last` after the block of a `try` was closed (no token has this number) */
#define TRY_CLOSED 0x7FFFu
/* `last` after a line at column 0 closed the last open block (no token has this number):
 * the command around the blocks is over, so what follows on the line must start a command */
#define CLOSED_AT_COLUMN_0 0x7FFEu
/* A block opened on the line of an `if` condition (`if foo do bar x then`): bits 17–19 hold
 * 1 + the number of `then` / `else` words the block takes on that line before the first one
 * that has no `if` of its own and so closes the block; 0 when there is none. */
#define IFC_SHIFT 17
#define IFC_MASK (7u << IFC_SHIFT)

/* Appends `count` entries to the runs (no overflow check: `len + count <= MAX_DEPTH`). */
static inline void append(Scanner *s, uint32_t entry, unsigned count) {
  if (s->nruns > 0 && (s->runs[s->nruns - 1] & ENTRY_MASK) == entry) {
    s->runs[s->nruns - 1] += (uint32_t)count << RUN_SHIFT;
  } else {
    s->runs[s->nruns++] = entry | (uint32_t)(count - 1) << RUN_SHIFT;
  }
  s->len += (uint16_t)count;
}

static inline void push(Scanner *s, uint32_t col) {
  /* a block opens: a `let` line's body is looked for inside it, by layout (see `EOL_LET`) */
  s->eol &= (uint8_t)~EOL_LET;
  s->eol_col = 0;
  if (s->len < MAX_DEPTH) {
    append(s, col, 1);
  } else {
    s->overflow++;
  }
}

/* Removes the innermost entry; `s->len >= 1`. */
static inline void drop_top(Scanner *s) {
  s->len--;
  if ((s->runs[s->nruns - 1] >> RUN_SHIFT) == 0) {
    s->nruns--;
  } else {
    s->runs[s->nruns - 1] -= 1u << RUN_SHIFT;
  }
}

static inline void pop(Scanner *s) {
  if (s->overflow > 0) {
    s->overflow--;
  } else if (s->len > 0) {
    drop_top(s);
  }
}

/* The innermost block's entry (0 when none is open). */
static inline uint32_t top_entry_of(const Scanner *s) {
  return s->len > 0 ? s->runs[s->nruns - 1] & ENTRY_MASK : 0;
}

/* The entry of the block around the innermost one; `s->len >= 2`. */
static inline uint32_t below_entry_of(const Scanner *s) {
  Run top = s->runs[s->nruns - 1];
  return (top >> RUN_SHIFT) >= 1 ? top & ENTRY_MASK : s->runs[s->nruns - 2] & ENTRY_MASK;
}

/* Replaces the innermost block's entry; `s->len >= 1`. */
static inline void set_top_entry(Scanner *s, uint32_t entry) {
  drop_top(s);
  append(s, entry, 1);
}

static inline bool is_space(int32_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
         c == 0xA0;
}

static inline bool is_ascii_word_start(int32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool is_ascii_word(int32_t c) {
  return is_ascii_word_start(c) || (c >= '0' && c <= '9') || c == '\'' || c == '!' ||
         c == '?';
}

static inline bool is_closer(int32_t c) {
  return c == ')' || c == ']' || c == '}' || c == 0x27E9 /* ⟩ */ ||
         c == 0x2984 /* ⦄ */ || c == 0x203A /* › */ || c == 0x27EB /* ⟫ */;
}

/* Approximation of the grammar's operator character class, used to tell a
 * lone `|` from the start of an operator run such as `||` or `|>`. */
static inline bool is_sym(int32_t c) {
  if (c < 0x80) {
    switch (c) {
      case '!': case '#': case '$': case '%': case '&': case '*': case '+':
      case '-': case '.': case '/': case '<': case '=': case '>': case '?':
      case '@': case '\\': case '^': case '|': case '~':
        return true;
      default:
        return false;
    }
  }
  if (c >= 0x2190 && c <= 0x22FF) return true; /* arrows, math operators */
  if (c >= 0x27F0 && c <= 0x27FF) return true; /* supplemental arrows */
  if (c >= 0x2980 && c <= 0x2AFF) return c != 0x2983 && c != 0x2984;
  return false;
}

/* How far (in characters) the scanner looks ahead past the token it decides about. Every
 * look-ahead is bounded by it, so scanning stays linear in the file however its lines and
 * comments are laid out. */
#define LOOKAHEAD_LIMIT 1024u

static int cmp_word(const void *a, const void *b) {
  return strcmp((const char *)a, *(const char *const *)b);
}

/* `list` is sorted (byte order). */
static bool word_in_sorted(const char *w, const char *const *list, size_t n) {
  return bsearch(w, list, n, sizeof(list[0]), cmp_word) != NULL;
}
#define word_in(w, L) word_in_sorted((w), (L), L##_LEN)

static const char *const COMMAND_WORDS[] = {
  "abbrev", "add_decl_doc", "attribute", "axiom", "binder_predicate",
  "builtin_initialize", "class", "declare_syntax_cat", "def", "deriving", "dsimproc",
  "elab", "elab_rules", "end", "example", "export", "import", "include", "inductive",
  "infix", "infixl", "infixr", "initialize", "instance", "irreducible_def", "lemma",
  "local", "macro", "macro_rules", "meta", "module", "mutual", "namespace",
  "noncomputable", "nonrec", "notation", "notation3", "omit", "opaque", "open",
  "partial", "postfix", "prefix", "prelude", "private", "protected", "public",
  "register_simp_attr", "scoped", "section", "set_option", "simproc", "structure",
  "syntax", "theorem", "universe", "unsafe", "variable",
};
#define COMMAND_WORDS_LEN (sizeof(COMMAND_WORDS) / sizeof(COMMAND_WORDS[0]))

/* Words that start a tactic and can never be a term argument: a line that
 * starts with one of them begins a new tactic even when it is indented more
 * than the block (Lean's `checkColGe`). */
static const char *const TACTIC_WORDS[] = {
  "all_goals", "any_goals", "apply", "by_cases", "by_contra", "by_contra!",
  "calc", "cases", "cases'", "change", "constructor", "contrapose",
  "contrapose!", "conv", "conv_lhs", "conv_rhs", "dsimp", "erw",
  "exact", "exact?", "exact_mod_cast", "exacts", "exfalso", "ext",
  "field_simp", "filter_upwards", "fin_cases", "first", "focus", "gcongr",
  "grind", "have", "haveI", "induction", "induction'", "interval_cases",
  "intro", "intros", "iterate", "left", "lift", "linarith",
  "native_decide", "nlinarith", "norm_cast", "norm_num", "nth_rewrite", "nth_rw",
  "obtain", "omega", "positivity", "push_cast", "push_neg", "qify",
  "rcases", "refine", "refine'", "rename_i", "repeat", "repeat'",
  "replace", "right", "ring", "ring_nf", "rintro", "rw",
  "rwa", "set", "show", "simp", "simp?", "simp_all",
  "simp_all?", "simp_rw", "simpa", "simpa?", "specialize", "split_ifs",
  "subst", "suffices", "tauto", "try", "unfold", "use",
  "use!", "zify",
};
#define TACTIC_WORDS_LEN (sizeof(TACTIC_WORDS) / sizeof(TACTIC_WORDS[0]))

/* Tactic words that also start a term (Lean's `have`, `show`, `suffices`, `calc` terms). */
static const char *const TERM_WORDS[] = {"calc", "have", "haveI", "show", "suffices"};
#define TERM_WORDS_LEN (sizeof(TERM_WORDS) / sizeof(TERM_WORDS[0]))

/* Lean's `#word` command keywords (core, Batteries, Mathlib): a token of Lean's, so no term
 * takes one and it starts a command also in the middle of a line (`#check a #check b`). A
 * project's own `#word` is a command only at a line start (it may be a term's notation). */
static const char *const HASH_COMMAND_WORDS[] = {
  "check", "check_failure", "conv", "eval", "exit", "explode", "find", "find_home",
  "guard", "guard_expr", "guard_msgs", "help", "html", "lint", "norm_num", "print",
  "reduce", "simp", "synth", "time", "version", "where", "widget",
};
#define HASH_COMMAND_WORDS_LEN (sizeof(HASH_COMMAND_WORDS) / sizeof(HASH_COMMAND_WORDS[0]))

/* Words that start a term whose body follows on the next line (Lean's `optSemicolon`). */
static const char *const BODY_WORDS[] = {"have", "haveI", "let", "letI", "suffices"};
#define BODY_WORDS_LEN (sizeof(BODY_WORDS) / sizeof(BODY_WORDS[0]))

/* Words that can stand at column 0 without starting a command: they continue the command
 * above (`where`, `termination_by`, a proof `by` / `sorry` on its own line, …). Any other
 * identifier at column 0, where a command may start, starts one (a project's own command). */
static const char *const CONTINUATION_WORDS[] = {
  "admit", "at", "by", "calc", "decreasing_by", "do", "else", "extends", "from",
  "fun", "generalizing", "have", "if", "in", "let", "match", "only", "show", "sorry",
  "suffices", "termination_by", "termination_by?", "then", "using", "where", "with",
};
#define CONTINUATION_WORDS_LEN (sizeof(CONTINUATION_WORDS) / sizeof(CONTINUATION_WORDS[0]))

/* Declaration modifiers (Lean's `declModifiers`, `attrKind`). */
static const char *const MODIFIER_WORDS[] = {
  "local", "meta", "noncomputable", "nonrec", "partial", "private", "protected", "public",
  "scoped", "unsafe",
};
#define MODIFIER_WORDS_LEN (sizeof(MODIFIER_WORDS) / sizeof(MODIFIER_WORDS[0]))

static const char *const CLOSING_WORDS[] = {
  "decreasing_by", "deriving", "termination_by", "termination_by?",
};
#define CLOSING_WORDS_LEN (sizeof(CLOSING_WORDS) / sizeof(CLOSING_WORDS[0]))

enum Kind {
  K_OTHER,
  K_CLOSER,
  K_COMMA,
  K_BAR,
  K_LINE_COMMENT,
  K_BLOCK_COMMENT,
};

/* Reads an ASCII word into `w` (NUL-terminated when it fits) and returns its length. */
static unsigned read_word(TSLexer *lx, char *w, unsigned size) {
  unsigned n = 0;
  while (is_ascii_word(lx->lookahead)) {
    if (n < size - 1) w[n] = (char)lx->lookahead;
    n++;
    adv(lx);
  }
  if (n < size) w[n] = 0;
  return n;
}

/* After a modifier word: do more modifiers and then a command word follow on the line? */
static bool modifiers_then_command(TSLexer *lx) {
  for (int i = 0; i < 8; i++) {
    if (lx->lookahead == '[') { /* `scoped[NS]` */
      while (!at_end(lx) && lx->lookahead != ']' && lx->lookahead != '\n') adv(lx);
      if (lx->lookahead != ']') return false;
      adv(lx);
    }
    while (lx->lookahead == ' ' || lx->lookahead == '\t') adv(lx);
    char w[24];
    unsigned n = read_word(lx, w, sizeof(w));
    if (n == 0 || n >= sizeof(w)) return false;
    if (!word_in(w, MODIFIER_WORDS)) return word_in(w, COMMAND_WORDS);
  }
  return false;
}

/* The lexer stands after `open` or `set_option` where a term may go on: is this Lean's term
 * `open … in t` / `set_option … in t` (Lean's `Term.open`, `Term.set_option`) rather than a
 * command (`open Foo`, or `open Foo in` before a command)? The `in` must be on this line; what
 * follows it decides: a term, or on the next line a term indented past column 0, rather than a
 * command word, `@[`, `#…` or a doc comment. */
static bool term_prefix_follows(TSLexer *lx) {
  unsigned budget = LOOKAHEAD_LIMIT;
  /* `open A in open B in t`: the last one decides */
  for (;;) {
    bool prev_word = true; /* the lexer stands right after the keyword */
    for (;;) {
      if (at_end(lx) || lx->lookahead == '\n' || budget-- == 0) return false;
      int32_t c = lx->lookahead;
      if (c == '-') {
        adv(lx);
        if (lx->lookahead == '-') return false;
        prev_word = false;
        continue;
      }
      if (!prev_word && c == 'i') {
        char w[4];
        unsigned n = read_word(lx, w, sizeof(w));
        if (n == 2 && strcmp(w, "in") == 0) break;
        prev_word = true;
        continue;
      }
      prev_word = is_ascii_word(c) || c == '.' || c >= 0x80;
      adv(lx);
    }
    /* after `in` */
    bool nl = false;
    uint32_t indent = 0;
    for (;;) {
      if (budget-- == 0) return false;
      int32_t c = lx->lookahead;
      if (c == '\n') {
        nl = true;
        indent = 0;
      } else if (c == ' ' || c == '\t') {
        indent++;
      } else if (c != '\r') {
        break;
      }
      adv(lx);
    }
    if (at_end(lx) || (nl && indent == 0)) return false;
    int32_t c = lx->lookahead;
    if (c == '@' || c == '#') return false;
    if (c == '/') {
      adv(lx);
      if (lx->lookahead != '-') return true;
      adv(lx);
      return lx->lookahead != '-';
    }
    if (!is_ascii_word_start(c)) return true;
    char w[24];
    unsigned n = read_word(lx, w, sizeof(w));
    if (n >= sizeof(w)) return true;
    if (strcmp(w, "open") == 0 || strcmp(w, "set_option") == 0) continue;
    if (word_in(w, MODIFIER_WORDS)) return !modifiers_then_command(lx);
    return !word_in(w, COMMAND_WORDS);
  }
}

/* After `deriving`: is the next word `instance` (the command `deriving instance … for …`,
 * not a declaration's `deriving` clause)? */
static bool deriving_instance(TSLexer *lx) {
  while (lx->lookahead == ' ' || lx->lookahead == '\t') adv(lx);
  char w[10];
  unsigned n = read_word(lx, w, sizeof(w));
  return n == 8 && strcmp(w, "instance") == 0;
}

/* Whether `=>` follows on the current line (outside nothing: a cheap look, read once per
 * line start). */
static bool arrow_on_line(TSLexer *lx) {
  while (!at_end(lx) && lx->lookahead != '\n') {
    if (lx->lookahead == '=') {
      adv(lx);
      if (lx->lookahead == '>') return true;
    } else {
      adv(lx);
    }
  }
  return false;
}

/* Whether a `:=` follows on the line (within `LOOKAHEAD_LIMIT` characters). */
static bool assign_on_line(TSLexer *lx) {
  for (unsigned i = 0; i < LOOKAHEAD_LIMIT && !at_end(lx) && lx->lookahead != '\n'; i++) {
    if (lx->lookahead == ':') {
      adv(lx);
      if (lx->lookahead == '=') return true;
    } else {
      adv(lx);
    }
  }
  return false;
}

/* Skips the rest of a comment (the lexer stands after its `--` or `/-`), spending at most
 * `*budget` characters; false when the budget ran out first. */
static bool skip_comment_rest(TSLexer *lx, bool block, unsigned *budget) {
  if (!block) {
    while (!at_end(lx) && lx->lookahead != '\n') {
      if ((*budget)-- == 0) return false;
      adv(lx);
    }
    return true;
  }
  unsigned depth = 1;
  while (!at_end(lx) && depth > 0) {
    if ((*budget)-- == 0) return false;
    int32_t c = lx->lookahead;
    adv(lx);
    if (c == '-' && lx->lookahead == '/') {
      adv(lx);
      depth--;
    } else if (c == '/' && lx->lookahead == '-') {
      adv(lx);
      depth++;
    }
  }
  return true;
}

/* A doc comment belongs to what follows it (Lean's `declModifiers`, a `syntax` / `macro`
 * command, a field, a constructor, a `where` definition: each takes `docComment?` first).
 * Commands that take none (`end`, `namespace`, `section`, `open`, `variable`, `universe`,
 * `set_option`, `import`), another doc comment, a module doc or the end of the file cannot
 * follow it: Lean stops there ("unexpected token 'end'; expected 'lemma'"). (`#` commands are
 * not judged: `#guard_msgs` takes the doc comment before it.) The lexer stands after the doc
 * comment; comments after it are skipped (bounded). */
static const char *const NO_DOC_WORDS[] = {
  "end", "import", "namespace", "open", "section", "set_option", "universe", "variable", NULL,
};

static bool doc_comment_orphaned(TSLexer *lx) {
  unsigned budget = LOOKAHEAD_LIMIT;
  for (;;) {
    while (is_space(lx->lookahead)) {
      if (budget-- == 0) return false;
      adv(lx);
    }
    if (at_end(lx)) return true;
    int32_t c = lx->lookahead;
    if (c == '-' || c == '/') {
      adv(lx);
      if (lx->lookahead != '-') return false;
      adv(lx);
      if (c == '/' && (lx->lookahead == '-' || lx->lookahead == '!')) {
        adv(lx);
        /* `/--` and `/-!` start docs; `/--/` is an empty plain comment */
        if (lx->lookahead != '/') return true;
        adv(lx);
        continue;
      }
      if (!skip_comment_rest(lx, c == '/', &budget)) return false;
      continue;
    }
    if (!is_ascii_word_start(c)) return false;
    char w[12];
    unsigned n = read_word(lx, w, sizeof(w));
    if (n >= sizeof(w) || lx->lookahead == '.') return false;
    for (const char *const *k = NO_DOC_WORDS; *k; k++)
      if (strcmp(w, *k) == 0) return true;
    return false;
  }
}

/* A column-0 comment: does a command (or the end of the file) follow it and the comments
 * after it? The lexer stands after the first comment's `--` or `/-`. */
static bool comments_then_command(TSLexer *lx, bool block) {
  /* Past the look-ahead limit, assume a command follows: the command above ends here. */
  unsigned budget = LOOKAHEAD_LIMIT;
  for (;;) {
    if (!skip_comment_rest(lx, block, &budget)) return true;
    uint32_t col = 1;
    while (is_space(lx->lookahead)) {
      if (budget-- == 0) return true;
      if (lx->lookahead == '\n') col = 0;
      else col++;
      adv(lx);
    }
    if (at_end(lx)) return true;
    int32_t c = lx->lookahead;
    if (c == '-' || c == '/') {
      adv(lx);
      if (lx->lookahead == '-') {
        adv(lx);
        block = c == '/';
        continue;
      }
      return false;
    }
    if (col != 0) return false;
    if (c == '@' || c == '#' || c == '%') {
      adv(lx);
      return c == '@' ? lx->lookahead == '[' : is_ascii_word_start(lx->lookahead);
    }
    if (!is_ascii_word_start(c)) return false;
    char w[24];
    unsigned n = read_word(lx, w, sizeof(w));
    if (n >= sizeof(w)) return true;
    if (strcmp(w, "deriving") == 0) return deriving_instance(lx);
    return !word_in(w, CONTINUATION_WORDS);
  }
}

/* At a word on a `where` line: `(modifier)* name ::` (a structure's constructor)? */
static bool ctor_follows(TSLexer *lx) {
  for (int i = 0; i < 4; i++) {
    char w[16];
    unsigned n = read_word(lx, w, sizeof(w));
    if (n == 0) return false;
    while (lx->lookahead == '.' || is_ascii_word(lx->lookahead)) adv(lx);
    while (lx->lookahead == ' ' || lx->lookahead == '\t') adv(lx);
    if (lx->lookahead == ':') {
      adv(lx);
      if (lx->lookahead != ':') return false;
      adv(lx);
      return at_end(lx) || is_space(lx->lookahead);
    }
    if (!is_ascii_word_start(lx->lookahead)) return false;
  }
  return false;
}

/* The lexer is on the `[` of `@[`: skips the attribute list (to the matching `]`, on this
 * line) and tells whether a command word or the end of the line follows. */
static bool attributes_then_command(TSLexer *lx) {
  unsigned depth = 0;
  while (!at_end(lx) && lx->lookahead != '\n') {
    int32_t c = lx->lookahead;
    adv(lx);
    if (c == '[') depth++;
    else if (c == ']' && --depth == 0) break;
  }
  while (lx->lookahead == ' ' || lx->lookahead == '\t') adv(lx);
  if (at_end(lx)) return true;
  if (lx->lookahead == '\n' || lx->lookahead == '\r') {
    /* the attributes have a line of their own: what the next line starts with decides
     * (`@[simp]` above `helper : Nat := 1` in a `where` block is a local definition's) */
    while (is_space(lx->lookahead)) adv(lx);
    if (at_end(lx) || lx->lookahead == '@' || lx->lookahead == '/' || lx->lookahead == '-')
      return true;
  }
  char w[24];
  unsigned n = read_word(lx, w, sizeof(w));
  return n > 0 && n < sizeof(w) && word_in(w, COMMAND_WORDS);
}

/* For a block that opens in the middle of a line: reads the rest of the line and returns the
 * number of `then` / `else` words before the first one that no `if` on the line (after the
 * block start) accounts for, or -1. Such a word belongs to an `if` that encloses the block
 * (`if cond do act x then`), as in Lean, where a term cannot take `then` unless an `if` is
 * open. Strings are skipped, a line comment ends the line. */
static int unmatched_then_else_scan(TSLexer *lx, bool *budget_out, bool *words_out);

/* `unmatched_then_else_scan`, remembered: a search that found no `then` / `else` word before it
 * stopped answers for every block that opens later in the bytes it read, since a later start
 * sees no more of them there (nested `by`s on one long line would otherwise each read the same
 * LOOKAHEAD_LIMIT characters: quadratic up to that limit). A search stopped by a closing
 * bracket, a comment or the end of the line answers for its whole range; one that ran out of
 * budget for its first half, so that every block's search still covers at least half the
 * budget past its start. The range is a fact about the text, kept for one parse. */
static int unmatched_then_else(Scanner *s, TSLexer *lx) {
  uint32_t start = runtime_position(lx)->bytes;
  if (start >= s->then_free_from && start < s->then_free_to) {
    uint32_t reach = s->then_free_budget
                         ? s->then_free_from + (s->then_free_to - s->then_free_from) / 2
                         : s->then_free_to;
    if (start < reach) return -1;
  }
  bool budget = false, words = false;
  int m = unmatched_then_else_scan(lx, &budget, &words);
  if (m < 0 && !words) {
    s->then_free_from = start;
    s->then_free_to = runtime_position(lx)->bytes;
    s->then_free_budget = budget;
  }
  return m;
}

/* `words_out`: a `then` or `else` word was read; `budget_out`: the search stopped because its
 * budget ran out. */
static int unmatched_then_else_scan(TSLexer *lx, bool *budget_out, bool *words_out) {
  int pending_then = 0, pending_else = 0, seen = 0;
  bool prev_word = false; /* the previous character continues an identifier */
  /* Bounded, so that a long line with many blocks stays linear: an `if` whose `then` is
   * further away than this on the same line is not told apart. */
  unsigned budget = LOOKAHEAD_LIMIT, depth = 0;
  while (!at_end(lx) && lx->lookahead != '\n') {
    if (budget-- == 0) {
      *budget_out = true;
      break;
    }
    int32_t c = lx->lookahead;
    if (c == '"') {
      adv(lx);
      while (!at_end(lx) && lx->lookahead != '"' && lx->lookahead != '\n') {
        if (lx->lookahead == '\\') adv(lx);
        adv(lx);
      }
      if (lx->lookahead == '"') adv(lx);
      prev_word = false;
      continue;
    }
    if (c == '-') {
      adv(lx);
      if (lx->lookahead == '-') return -1;
      prev_word = false;
      continue;
    }
    if (is_ascii_word_start(c) && !prev_word) {
      char w[8];
      unsigned n = read_word(lx, w, sizeof(w));
      prev_word = lx->lookahead == '.' || lx->lookahead >= 0x80;
      if (n == 2 && strcmp(w, "if") == 0) {
        pending_then++;
      } else if (n == 4 && strcmp(w, "then") == 0) {
        *words_out = true;
        if (pending_then == 0) return seen;
        pending_then--;
        pending_else++;
        seen++;
      } else if (n == 4 && strcmp(w, "else") == 0) {
        *words_out = true;
        if (pending_else == 0) return seen;
        pending_else--;
        seen++;
      }
      continue;
    }
    /* A closing bracket that no bracket after the block start opened ends the block: what
     * follows it is not the block's. */
    if (c == '(' || c == '[' || c == '{' || c == 0x27E8 /* ⟨ */) depth++;
    if (is_closer(c) && depth-- == 0) return -1;
    prev_word = is_ascii_word(c) || c == '.' || c >= 0x80;
    adv(lx);
  }
  return -1;
}

/* A raw string (Lean's `rawStrLitFnAux`): `r`, n ≥ 0 `#`, `"`, text without escapes, then the
 * first `"` followed by n `#`. The lexer stands right after the `r`. An unterminated one is
 * no token (the lexer then reads `r` as a word, as before). */
static bool raw_string_rest(TSLexer *lx) {
  unsigned hashes = 0;
  while (lx->lookahead == '#') {
    hashes++;
    adv(lx);
  }
  if (lx->lookahead != '"') return false;
  adv(lx);
  for (;;) {
    if (at_end(lx)) return false;
    if (lx->lookahead != '"') {
      adv(lx);
      continue;
    }
    adv(lx);
    unsigned k = 0;
    while (k < hashes && lx->lookahead == '#') {
      k++;
      adv(lx);
    }
    if (k == hashes) {
      lx->mark_end(lx);
      lx->result_symbol = RAW_STRING;
      return true;
    }
  }
}

/* Symbols that end a term rather than wait for an operand: constants (`∅`, `⊤`, `⊥`, `∞`,
 * `⋯`, `∎`), postfix `!` / `?` and the goal of a tactic's location (`at h ⊢`). A run of symbols that ends with one is no operator that
 * the next line must go on with (`… := ∅` / `problem p …`). */
static inline bool ends_term(int32_t c) {
  return c == '!' || c == '?' || c == 0x2205 || c == 0x22A4 || c == 0x22A5 || c == 0x221E ||
         c == 0x22EF || c == 0x220E || c == 0x22A2 /* `at h ⊢` */;
}

/* The lexer stands right after an operator or a `,`: whether the line ends there (only blanks
 * and a line comment follow). If so, `*matters` tells whether the next line is one whose start the line break
 * decides (see `EOL_OP`): one that starts with `#`, or at column 0 outside every block (not a
 * block comment). Only then is the line break remembered, so that it costs a token seldom. */
static bool note_op_eol(Scanner *s, TSLexer *lx, bool *matters) {
  while (lx->lookahead == ' ' || lx->lookahead == '\t') adv(lx);
  /* a line comment is whitespace to Lean (`=> -- the norm` / `x`) */
  if (lx->lookahead == '-') {
    adv(lx);
    if (lx->lookahead != '-') return false;
    while (!at_end(lx) && lx->lookahead != '\n') adv(lx);
  }
  if (!at_end(lx) && lx->lookahead != '\n' && lx->lookahead != '\r') return false;
  unsigned indent = 0;
  while (is_space(lx->lookahead)) {
    if (lx->lookahead == '\n') indent = 0;
    else if (lx->lookahead != '\r') indent++;
    adv(lx);
  }
  bool top = s->len == 0 && s->overflow == 0;
  *matters = !at_end(lx) && (lx->lookahead == '#' || (indent == 0 && top && lx->lookahead != '/'));
  return true;
}

/* Remembers the line break after an operator or `,` (see `EOL_OP`). */
static void set_op_eol(Scanner *s) {
  s->eol = (uint8_t)(EOL_OP | (s->len == 0 && s->overflow == 0 ? EOL_TOP : 0));
  s->eol_col = 0;
  s->eol_set = true;
}

static inline bool emit(Scanner *s, TSLexer *lx, enum TokenType t) {
  s->last = (uint16_t)t;
  lx->result_symbol = t;
  return true;
}

/* Emits the zero-width `_command_start`, remembering in `last` a hash of the line's first
 * characters (the lexer stands somewhere in its first word). tree-sitter ignores an empty
 * token in error recovery when the scanner's state did not change: so a start that the
 * parser skipped is not offered again at the same place (no endless loop), while the next
 * line's start, which hashes differently, still is. */
static uint16_t command_start_state(TSLexer *lx, uint32_t seed) {
  uint32_t h = seed * 31u + 7u;
  for (int i = 0; i < 48 && !at_end(lx) && lx->lookahead != '\n'; i++) {
    h = h * 31u + (uint32_t)lx->lookahead;
    adv(lx);
  }
  return (uint16_t)(COMMAND_START | ((h & 0x7FFu) << 5));
}

static bool emit_command_start(Scanner *s, TSLexer *lx, uint32_t seed) {
  s->notation_depth = 0; /* a bracket left open does not outlive its command */
  s->last = command_start_state(lx, seed);
  lx->result_symbol = COMMAND_START;
  return true;
}

static uint32_t word_hash(const char *w) {
  uint32_t h = 0;
  for (; *w; w++) h = h * 31u + (unsigned char)*w;
  return h;
}

/* Lex the rest of a block comment; the lexer is positioned just after "/-". */
static bool finish_block_comment(TSLexer *lx, const bool *valid) {
  enum TokenType type = BLOCK_COMMENT;
  if (lx->lookahead == '-') {
    adv(lx);
    if (lx->lookahead == '/') {
      /* "/--/" : an empty plain comment */
      adv(lx);
      lx->mark_end(lx);
      lx->result_symbol = BLOCK_COMMENT;
      return valid[BLOCK_COMMENT];
    }
    type = DOC_COMMENT;
  } else if (lx->lookahead == '!') {
    adv(lx);
    type = MODULE_DOC;
  }
  unsigned depth = 1;
  while (!at_end(lx)) {
    int32_t c = lx->lookahead;
    if (c == '-') {
      adv(lx);
      if (lx->lookahead == '/') {
        adv(lx);
        if (--depth == 0) break;
      }
    } else if (c == '/') {
      adv(lx);
      if (lx->lookahead == '-') {
        adv(lx);
        depth++;
      }
    } else {
      adv(lx);
    }
  }
  lx->mark_end(lx);
  if (depth > 0) {
    /* An unterminated comment runs to the end of the file.  Lean reports an
     * error there, so the tree must show one: return a token that no parse
     * state accepts (the sentinel), which the parser puts in an ERROR node. */
    lx->result_symbol = ERROR_SENTINEL;
    return true;
  }
  /* a doc comment that nothing after it can take is an error (as in Lean), in its place */
  if (type == DOC_COMMENT && doc_comment_orphaned(lx)) {
    lx->result_symbol = ERROR_SENTINEL;
    return true;
  }
  lx->result_symbol = type;
  return valid[type];
}

/* A run of colons (Verso's directive fences); the lexer stands on the first. */
static unsigned colons(TSLexer *lx) {
  unsigned n = 0;
  while (lx->lookahead == ':') {
    n++;
    adv(lx);
  }
  return n;
}

/* The body of Verso's `#docs … :=`: a fence of three or more colons, Verso markup, and the
 * same fence on a line of its own. Inside, a fence followed by a name opens a directive and a
 * bare fence of the same length closes it (`Verso.Doc.Concrete`). No closing fence: no token,
 * so the parser reports the document as unfinished. */
static bool verso_fenced(Scanner *s, TSLexer *lx) {
  (void)s;
  while (is_space(lx->lookahead)) skp(lx);
  unsigned open = colons(lx);
  if (open < 3) return false;
  unsigned nested[16], depth = 0, overflow = 0;
  for (;;) {
    while (!at_end(lx) && lx->lookahead != '\n') adv(lx);
    if (at_end(lx)) return false;
    adv(lx);
    while (lx->lookahead == ' ' || lx->lookahead == '\t') adv(lx);
    unsigned n = colons(lx);
    if (n < 3) continue;
    while (lx->lookahead == ' ' || lx->lookahead == '\t' || lx->lookahead == '\r') adv(lx);
    bool bare = at_end(lx) || lx->lookahead == '\n';
    if (!bare) {
      if (depth < 16) nested[depth++] = n;
      else overflow++;
    } else if (overflow > 0) {
      overflow--;
    } else if (depth > 0) {
      if (nested[depth - 1] == n) depth--;
    } else if (n == open) {
      lx->mark_end(lx);
      lx->result_symbol = VERSO_FENCED;
      return true;
    }
  }
}

/* Bracket notations (Unicode's paired brackets that Lean does not use itself: `⁅a, b⁆`,
 * `⟦x⟧`, `⌊x⌋`, `F⟮α, β⟯`, …): the closing bracket of an opening one, or 0. */
static int32_t notation_closer(int32_t c) {
  switch (c) {
    case 0x2045: return 0x2046; /* ⁅ ⁆ */
    case 0x2308: return 0x2309; /* ⌈ ⌉ */
    case 0x230A: return 0x230B; /* ⌊ ⌋ */
    case 0x2329: return 0x232A; /* 〈 〉 */
    case 0x27C5: return 0x27C6; /* ⟅ ⟆ */
    case 0x27E6: return 0x27E7; /* ⟦ ⟧ */
    case 0x27EC: return 0x27ED; /* ⟬ ⟭ */
    case 0x27EE: return 0x27EF; /* ⟮ ⟯ */
    case 0x2985: return 0x2986; /* ⦅ ⦆ */
    case 0x2987: return 0x2988; /* ⦇ ⦈ */
    case 0x2989: return 0x298A; /* ⦉ ⦊ */
    case 0x298B: return 0x298C; /* ⦋ ⦌ */
    case 0x29FC: return 0x29FD; /* ⧼ ⧽ */
    default: return 0;
  }
}

static bool is_notation_closer(int32_t c) {
  return c == 0x2046 || c == 0x2309 || c == 0x230B || c == 0x232A || c == 0x27C6 ||
         c == 0x27E7 || c == 0x27ED || c == 0x27EF || c == 0x2986 || c == 0x2988 ||
         c == 0x298A || c == 0x298C || c == 0x29FD;
}

/* A bracket notation's opening or closing bracket, or a `,` inside one (which belongs to
 * the notation, not to a construct around it: `exact ⁅a, b⁆` in a tactic block). */
static bool notation_token(Scanner *s, TSLexer *lx, const bool *valid) {
  int32_t c = lx->lookahead;
  if (valid[NOTATION_OPEN] && notation_closer(c)) {
    adv(lx);
    lx->mark_end(lx);
    if (s->notation_depth < 255) s->notation_depth++;
    return emit(s, lx, NOTATION_OPEN);
  }
  if (s->notation_depth == 0) return false;
  if (valid[NOTATION_CLOSE] && is_notation_closer(c)) {
    adv(lx);
    lx->mark_end(lx);
    s->notation_depth--;
    return emit(s, lx, NOTATION_CLOSE);
  }
  if (valid[NOTATION_COMMA] && c == ',') {
    adv(lx);
    lx->mark_end(lx);
    return emit(s, lx, NOTATION_COMMA);
  }
  return false;
}

/* Characters that end the raw text between HTML tags (doc-gen4's `jsxText`). */
static inline bool ends_jsx_text(int32_t c) {
  return c == '[' || c == '{' || c == '<' || c == '>' || c == '}' || c == ']' || c == '$';
}

/* ---- HTML elements in terms (doc-gen4's and ProofWidgets' JSX, Verso's `{{ … }}`) ----
 *
 * `<tag attr="v" attr={term} [term] attr>` children `</tag>`, or `<tag … />` (also `/ >`).
 * Children: raw text (anything but `[{<>}]$`; Lean skips whitespace and comments before it),
 * string literals, `{term}`, `[term]`, elements, `<!-- … -->`. The Lean terms inside brackets
 * are skipped with their brackets balanced (strings, character literals, comments and nested
 * elements inside them too). The whole element is one token. */

#define JSX_LIMIT (1u << 18) /* characters an element may span */
#define JSX_DEPTH 32         /* nesting of elements and bracketed terms */

static inline bool jsx_step(TSLexer *lx, unsigned *budget) {
  if (*budget == 0 || at_end(lx)) return false;
  (*budget)--;
  adv(lx);
  return true;
}

static inline bool is_tag_char(int32_t c) {
  return is_ascii_word(c) || c == '.' || c == '-' || c == ':';
}

/* A string literal; the lexer is on its `"`. */
static bool jsx_string(TSLexer *lx, unsigned *budget) {
  if (!jsx_step(lx, budget)) return false;
  while (lx->lookahead != '"') {
    if (lx->lookahead == '\\' && !jsx_step(lx, budget)) return false;
    if (!jsx_step(lx, budget)) return false;
  }
  return jsx_step(lx, budget);
}

/* A raw string (see `raw_string_rest`), the lexer right after its `r`; false when none
 * starts there. */
static bool jsx_raw_string(TSLexer *lx, unsigned *budget) {
  unsigned hashes = 0;
  while (lx->lookahead == '#') {
    hashes++;
    if (!jsx_step(lx, budget)) return false;
  }
  if (lx->lookahead != '"' || !jsx_step(lx, budget)) return false;
  for (;;) {
    bool quote = lx->lookahead == '"';
    if (!jsx_step(lx, budget)) return false;
    if (!quote) continue;
    unsigned k = 0;
    while (k < hashes && lx->lookahead == '#') {
      k++;
      if (!jsx_step(lx, budget)) return false;
    }
    if (k == hashes) return true;
  }
}

/* A comment, the lexer after its `-` or `/` (the second character is the lookahead). */
static bool jsx_comment(TSLexer *lx, bool block, unsigned *budget) {
  if (!jsx_step(lx, budget)) return false;
  if (!block) {
    while (!at_end(lx) && lx->lookahead != '\n')
      if (!jsx_step(lx, budget)) return false;
    return true;
  }
  unsigned depth = 1;
  while (depth > 0) {
    int32_t c = lx->lookahead;
    if (!jsx_step(lx, budget)) return false;
    if (c == '-' && lx->lookahead == '/') {
      if (!jsx_step(lx, budget)) return false;
      depth--;
    } else if (c == '/' && lx->lookahead == '-') {
      if (!jsx_step(lx, budget)) return false;
      depth++;
    }
  }
  return true;
}

static bool jsx_element_rest(TSLexer *lx, unsigned *budget, unsigned depth);

static int32_t closer_of(int32_t c) {
  switch (c) {
    case '(': return ')';
    case '[': return ']';
    case '{': return '}';
    case 0x27E8: return 0x27E9; /* ⟨ ⟩ */
    default: return 0;
  }
}

/* A Lean term in brackets; the lexer is on the opening bracket. */
static bool jsx_lean(TSLexer *lx, unsigned *budget, unsigned depth) {
  if (depth > JSX_DEPTH) return false;
  int32_t closers[JSX_DEPTH];
  unsigned n = 0;
  closers[n++] = closer_of(lx->lookahead);
  if (!jsx_step(lx, budget)) return false;
  bool after_word = false;
  while (n > 0) {
    int32_t c = lx->lookahead;
    if (at_end(lx)) return false;
    if (c == '"') {
      if (!jsx_string(lx, budget)) return false;
      after_word = false;
    } else if (c == 'r' && !after_word) {
      /* a raw string, or a word that starts with `r` */
      if (!jsx_step(lx, budget)) return false;
      if (lx->lookahead == '#' || lx->lookahead == '"') {
        if (!jsx_raw_string(lx, budget)) return false;
        after_word = false;
      } else {
        after_word = true;
      }
    } else if (c == '\'' && !after_word) {
      /* a character literal (a prime follows a word) */
      if (!jsx_step(lx, budget)) return false;
      if (lx->lookahead == '\\' && !jsx_step(lx, budget)) return false;
      if (!jsx_step(lx, budget)) return false;
      if (lx->lookahead == '\'' && !jsx_step(lx, budget)) return false;
    } else if (c == '-' || c == '/') {
      if (!jsx_step(lx, budget)) return false;
      if ((c == '-' && lx->lookahead == '-') || (c == '/' && lx->lookahead == '-')) {
        if (!jsx_comment(lx, c == '/', budget)) return false;
      }
      after_word = false;
    } else if (c == '<' && !after_word) {
      if (!jsx_step(lx, budget)) return false;
      if (is_ascii_word_start(lx->lookahead) && !jsx_element_rest(lx, budget, depth + 1))
        return false;
      after_word = false;
    } else if (closer_of(c)) {
      if (n == JSX_DEPTH) return false;
      closers[n++] = closer_of(c);
      if (!jsx_step(lx, budget)) return false;
      after_word = false;
    } else if (c == ')' || c == ']' || c == '}' || c == 0x27E9) {
      if (closers[n - 1] != c) return false;
      n--;
      if (!jsx_step(lx, budget)) return false;
      after_word = true;
    } else {
      after_word = is_ascii_word(c) || c >= 0x80;
      if (!jsx_step(lx, budget)) return false;
    }
  }
  return true;
}

/* An attribute's value after `=`: a string (also `s!"…"`, `r!"…"`, a raw string `r#"…"#`) or a
 * bracketed term. */
static bool jsx_value(TSLexer *lx, unsigned *budget, unsigned depth) {
  while (lx->lookahead == ' ') if (!jsx_step(lx, budget)) return false;
  int32_t c = lx->lookahead;
  if (c == '"') return jsx_string(lx, budget);
  if (c == '{' || c == '[' || c == '(') return jsx_lean(lx, budget, depth);
  if (c == 's' || c == 'r') {
    if (!jsx_step(lx, budget)) return false;
    if (c == 'r' && (lx->lookahead == '#' || lx->lookahead == '"')) return jsx_raw_string(lx, budget);
    if (lx->lookahead != '!' || !jsx_step(lx, budget)) return false;
    return lx->lookahead == '"' && jsx_string(lx, budget);
  }
  return false;
}

/* The rest of an element, the lexer after its `<` (on the tag name). */
static bool jsx_element_rest(TSLexer *lx, unsigned *budget, unsigned depth) {
  if (depth > JSX_DEPTH || !is_ascii_word_start(lx->lookahead)) return false;
  while (is_tag_char(lx->lookahead))
    if (!jsx_step(lx, budget)) return false;
  /* attributes */
  for (;;) {
    while (is_space(lx->lookahead))
      if (!jsx_step(lx, budget)) return false;
    int32_t c = lx->lookahead;
    if (c == '>') {
      if (!jsx_step(lx, budget)) return false;
      break;
    }
    if (c == '/') {
      if (!jsx_step(lx, budget)) return false;
      while (lx->lookahead == ' ')
        if (!jsx_step(lx, budget)) return false;
      return lx->lookahead == '>' && jsx_step(lx, budget);
    }
    if (c == '{' || c == '[') {
      if (!jsx_lean(lx, budget, depth + 1)) return false;
      continue;
    }
    if (c == '"') {
      if (!jsx_string(lx, budget)) return false;
    } else if (is_ascii_word_start(c)) {
      while (is_tag_char(lx->lookahead))
        if (!jsx_step(lx, budget)) return false;
    } else {
      return false;
    }
    while (lx->lookahead == ' ')
      if (!jsx_step(lx, budget)) return false;
    if (lx->lookahead == '=') {
      if (!jsx_step(lx, budget) || !jsx_value(lx, budget, depth + 1)) return false;
    }
  }
  /* children */
  for (;;) {
    while (is_space(lx->lookahead))
      if (!jsx_step(lx, budget)) return false;
    int32_t c = lx->lookahead;
    if (at_end(lx)) return false;
    if (c == '<') {
      if (!jsx_step(lx, budget)) return false;
      if (lx->lookahead == '/') {
        /* the closing tag */
        if (!jsx_step(lx, budget)) return false;
        while (is_tag_char(lx->lookahead) || lx->lookahead == ' ')
          if (!jsx_step(lx, budget)) return false;
        return lx->lookahead == '>' && jsx_step(lx, budget);
      }
      if (lx->lookahead == '!') {
        /* `<!-- … -->` */
        unsigned dashes = 0;
        for (;;) {
          int32_t d = lx->lookahead;
          if (!jsx_step(lx, budget)) return false;
          if (d == '>' && dashes >= 2) break;
          dashes = d == '-' ? dashes + 1 : 0;
        }
        continue;
      }
      if (!jsx_element_rest(lx, budget, depth + 1)) return false;
    } else if (c == '{' || c == '[') {
      if (!jsx_lean(lx, budget, depth + 1)) return false;
    } else if (c == '"') {
      if (!jsx_string(lx, budget)) return false;
    } else if (c == '}' || c == ']' || c == '>' || c == '$') {
      return false;
    } else {
      /* an interpolated or raw string (`s!"…"`), raw text, or a comment where text would
       * begin */
      if (c == 's' || c == 'm' || c == 'f' || c == 'r') {
        if (!jsx_step(lx, budget)) return false;
        if (lx->lookahead == '!') {
          if (!jsx_step(lx, budget)) return false;
          if (lx->lookahead == '"') {
            if (!jsx_string(lx, budget)) return false;
            continue;
          }
        }
      } else if (c == '-' || c == '/') {
        if (!jsx_step(lx, budget)) return false;
        if ((c == '-' && lx->lookahead == '-') || (c == '/' && lx->lookahead == '-')) {
          if (!jsx_comment(lx, c == '/', budget)) return false;
          continue;
        }
      }
      while (!at_end(lx) && !ends_jsx_text(lx->lookahead))
        if (!jsx_step(lx, budget)) return false;
    }
  }
}

/* The lexer is right after a `<` where a term may go on: reads an element, or fails. A `<`
 * that is no element (`a < b`, `a <b`, `<;>`) fails at once: the tag name must be followed by
 * `>`, `/`, or whitespace and an attribute (a name, a string, `{` or `[`). */
static bool jsx_element(Scanner *s, TSLexer *lx, uint32_t start) {
  if (!is_ascii_word_start(lx->lookahead) || start < s->jsx_failed_until) return false;
  unsigned budget = JSX_LIMIT;
  if (!jsx_element_rest(lx, &budget, 0)) {
    uint32_t here = runtime_position(lx)->bytes;
    if (here > s->jsx_failed_until) s->jsx_failed_until = here;
    return false;
  }
  lx->mark_end(lx);
  lx->result_symbol = JSX_ELEMENT;
  return true;
}

/* ---- the end of `e |>.f a b` ----
 * Lean's `pipeProj` is a trailing parser at `minPrec` (`trailing_parser:minPrec`), and
 * `trailingNode` leaves that precedence as the term's `lhsPrec`: a binary operator, whose
 * trailing parser checks a higher `lhsPrec` (`infixl:65 " + "` checks 65), cannot take the
 * term as its left operand, so the term ends before it and nothing around a term takes a
 * binary operator next ("unexpected token '≤'; expected command"), at any column. Where the
 * grammar marks the end of such a term (`_pipe_check`), a binary operator is an error. Only
 * symbols that start no prefix operator and no other token count: `|>`, `<|`, `$`, `▸`, `→`
 * (lower or no `lhsPrec`), `-`, `¬`, `↑`, `!` (prefixes, arguments) do not. */

/* Unicode symbols that start only binary operators (relations, lattice and set operations,
 * composition, products): one look at the next character decides, nothing is consumed. */
static bool binary_symbol(int32_t c) {
  switch (c) {
    case 0x2264: case 0x2265: case 0x2260: /* ≤ ≥ ≠ */
    case 0x2227: case 0x2228: case 0x2194: /* ∧ ∨ ↔ */
    case 0x2208: case 0x2209:              /* ∈ ∉ */
    case 0x2286: case 0x2282: case 0x2287: case 0x2283: case 0x228A: /* ⊆ ⊂ ⊇ ⊃ ⊊ */
    case 0x2229: case 0x222A: case 0x2223: /* ∩ ∪ ∣ */
    case 0x2218: case 0x2022: case 0x00D7: /* ∘ • × */
    case 0x2261: case 0x2248: case 0x2243: case 0x2245: /* ≡ ≈ ≃ ≅ */
    case 0x2293: case 0x2294: case 0x2216: /* ⊓ ⊔ ∖ */
      return true;
    default:
      return false;
  }
}

/* A symbol that may end a line as an operator (see `_op_eol`): the grammar's operator
 * characters as `is_sym` approximates them, binary symbols, and geometric shapes (`▸`). */
static inline bool eol_symbol(int32_t c) {
  return is_sym(c) || binary_symbol(c) || (c >= 0x25A0 && c <= 0x25FF);
}

/* ASCII binary operators, as whole runs of symbol characters (`=>` is no operator). */
static const char *const BINARY_ASCII[] = {
  "=", "==", "!=", ">", ">=", ">>=", "<", "<=", "<->", "+", "++", "*", "^", "/", "\\",
  "/\\", "\\/", "&&", NULL,
};

/* The first characters of `BINARY_ASCII` but `<` and `/` (which may start an HTML element or
 * a comment). */
static inline bool pipe_ascii_start(int32_t c) {
  return c == '=' || c == '!' || c == '>' || c == '+' || c == '*' || c == '^' || c == '\\' ||
         c == '&';
}

/* The lexer stands on an ASCII symbol, or right after `first` (0: nothing read): reads the
 * rest of the run of symbol characters (bounded) and tells whether it is a binary operator. */
static bool binary_ascii_run(TSLexer *lx, int32_t first) {
  char run[8];
  unsigned n = 0;
  if (first) run[n++] = (char)first;
  while (lx->lookahead < 0x80 && is_sym(lx->lookahead)) {
    if (n + 1 >= sizeof(run)) return false;
    run[n++] = (char)lx->lookahead;
    adv(lx);
  }
  run[n] = 0;
  for (const char *const *op = BINARY_ASCII; *op; op++)
    if (strcmp(run, *op) == 0) return true;
  return false;
}

/* Whether `scan` emits nothing at `c` in the middle of a line where no block can open (no
 * LAYOUT_START, CALC_START, CALC_STEPS_START, TACTIC_START, WHERE_START, ALTS_START valid):
 * what it decides there needs one of a `|`, a `,`, `/` or `-` (comments), `<` (an HTML
 * element, `<;>`), `@`, `#`, `%`, a closing bracket that may end a block (E), a bracket
 * notation's bracket, a `then` / `else` after a space, a term's `open` / `set_option`, an
 * operator where an operator at the end of the line or the end of `e |>.f a` is possible, or
 * the end of the file. Everything else answers here; the rest of `scan` would read it to the
 * same end. */
static inline bool inert_mid_line(int32_t c, bool ws, bool has, const bool *valid) {
  if (c < 0x80) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9')) {
      if ((c == 't' || c == 'e') && ws && (valid[LAYOUT_END] || valid[THEN] || valid[ELSE]))
        return false;
      if ((c == 'o' || c == 's') && valid[TERM_PREFIX_START]) return false;
      return true;
    }
    switch (c) {
      case '(': case '[': case '{': case ':': case ';': case '.': case '"': case '\'':
        return true;
      case ')': case ']': case '}':
        return !(has && valid[LAYOUT_END]);
      case '=': case '+': case '*': case '^': case '!': case '?': case '&': case '$': case '~':
      case '>': case '\\':
        return !valid[OP_EOL] && !valid[PIPE_CHECK];
      default:
        return false;
    }
  }
  if (c == 0x27E8 /* ⟨ */) return true;
  if (is_closer(c)) return !(has && valid[LAYOUT_END]);
  if (c == 0xB7 /* · */ || notation_closer(c) || is_notation_closer(c)) return false;
  if (eol_symbol(c)) return !valid[OP_EOL] && !valid[PIPE_CHECK];
  return true;
}

static bool scan_token(Scanner *s, TSLexer *lx, const bool *valid) {
  bool recovery = valid[ERROR_SENTINEL];

  /* right after a `calc` step's `:=`: mark the first step's block (see `PROOF_FLAG`) */
  if (!recovery && valid[CALC_PROOF]) {
    if (s->len > 0 && s->overflow == 0 && (top_entry_of(s) & CALC_FLAG))
      set_top_entry(s, top_entry_of(s) | PROOF_FLAG);
    lx->mark_end(lx);
    return emit(s, lx, CALC_PROOF);
  }

  if (!recovery && valid[INTERP_CONTENT]) {
    bool any = false;
    while (!at_end(lx) && lx->lookahead != '"' && lx->lookahead != '{') {
      if (lx->lookahead == '\\') {
        adv(lx);
        if (at_end(lx)) break;
      }
      adv(lx);
      any = true;
    }
    if (any) {
      lx->mark_end(lx);
      lx->result_symbol = INTERP_CONTENT;
      return true;
    }
    return false;
  }

  if (!recovery && valid[EXIT_TAIL]) {
    bool any = false;
    while (!at_end(lx)) {
      adv(lx);
      any = true;
    }
    if (any) {
      lx->mark_end(lx);
      lx->result_symbol = EXIT_TAIL;
      return true;
    }
    return false;
  }

  if (!recovery && valid[VERSO_FENCED]) return verso_fenced(s, lx);
  if (!recovery && valid[TRY_BLOCK]) {
    lx->mark_end(lx);
    return emit(s, lx, TRY_BLOCK);
  }



  /* Most tokens sit where only comments are possible (inside brackets, in
   * commands): skip the whitespace and look for `/-` alone. */
  if (!recovery && !valid[LAYOUT_START] && !valid[LAYOUT_SEP] && !valid[LAYOUT_END] &&
      !valid[CALC_START] && !valid[CALC_STEPS_START] && !valid[ALTS_START] && !valid[COMMA] &&
      !valid[BAR] &&
      !valid[ABS_BAR] && !valid[THEN] && !valid[ELSE] && !valid[COMMAND_START] &&
      !valid[COMMAND_END] && !valid[TACTIC_START] && !valid[WHERE_START]) {
    uint32_t row = runtime_position(lx)->row;
    while (is_space(lx->lookahead)) skp(lx);
    /* a line break the state remembers (see `eol`), or a `let` line of a command's term: here
     * they decide nothing but the state past the line break (a zero-width `_op_eol` after it).
     * (The runtime's row and byte column tell the line break and the indentation, once the
     * byte column has been checked: see `column_here`.) */
    int32_t c0 = lx->lookahead;
    bool word = (c0 == 'l' || c0 == 'h') && s->len == 0 && s->overflow == 0;
    if ((s->eol != 0 || word) && s->byte_column > 0 && runtime_position(lx)->row != row &&
        !recovery && valid[OP_EOL]) {
      unsigned ind = runtime_position(lx)->column;
      word = word && ind > 0;
      bool top = s->len == 0 && s->overflow == 0;
      bool let_line = false;
      lx->mark_end(lx);
      if (word) {
        char w[8];
        unsigned n = read_word(lx, w, sizeof(w));
        let_line = n < sizeof(w) && word_in(w, BODY_WORDS);
      }
      uint8_t col = ind > 255 ? 255 : (uint8_t)ind;
      bool body_line = (s->eol & EOL_LET) && top && ind <= s->eol_col;
      uint8_t next = let_line ? EOL_LET : body_line ? 0 : (uint8_t)(s->eol & EOL_LET);
      uint8_t next_col = let_line ? col : next ? s->eol_col : 0;
      if (next != s->eol || next_col != s->eol_col) {
        s->eol = next;
        s->eol_col = next_col;
        s->eol_set = true;
        lx->result_symbol = OP_EOL;
        return true;
      }
      /* (a word: nothing below decides anything at it) */
      if (word) return false;
    }
    if (valid[PIPE_CHECK]) {
      /* after `e |>.f a b`: a binary operator (see `binary_symbol`) */
      int32_t c0 = lx->lookahead;
      lx->mark_end(lx);
      if (binary_symbol(c0)) return emit(s, lx, ERROR_SENTINEL);
      if (pipe_ascii_start(c0)) return binary_ascii_run(lx, 0) && emit(s, lx, ERROR_SENTINEL);
      if (c0 == '<' || c0 == '/') {
        uint32_t start = runtime_position(lx)->bytes;
        adv(lx);
        if (c0 == '/' && lx->lookahead == '-') {
          adv(lx);
          return finish_block_comment(lx, valid);
        }
        if (c0 == '<' && valid[JSX_ELEMENT] && is_ascii_word_start(lx->lookahead))
          return jsx_element(s, lx, start);
        if (c0 == '<' && lx->lookahead == ';') return false; /* `<;>` */
        return binary_ascii_run(lx, c0) && emit(s, lx, ERROR_SENTINEL);
      }
    }
    if ((valid[NOTATION_OPEN] || s->notation_depth > 0) && notation_token(s, lx, valid))
      return true;
    if (valid[JSX_ELEMENT] && lx->lookahead == '<') {
      uint32_t start = runtime_position(lx)->bytes;
      adv(lx);
      return jsx_element(s, lx, start);
    }
    if (valid[TERM_PREFIX_START] && (lx->lookahead == 'o' || lx->lookahead == 's')) {
      lx->mark_end(lx);
      char w[12];
      unsigned n = read_word(lx, w, sizeof(w));
      if (n < sizeof(w) && (strcmp(w, "open") == 0 || strcmp(w, "set_option") == 0) &&
          term_prefix_follows(lx))
        return emit(s, lx, TERM_PREFIX_START);
      return false;
    }
    if (lx->lookahead == 'r' && valid[RAW_STRING]) {
      adv(lx);
      return raw_string_rest(lx);
    }
    if (lx->lookahead != '/') return false;
    adv(lx);
    if (lx->lookahead != '-') return false;
    adv(lx);
    return finish_block_comment(lx, valid);
  }

  /* Layout tokens are zero-width and sit before the whitespace, so that the
   * next scan sees the same line break again. */
  lx->mark_end(lx);

  /* ---- skip whitespace, tracking line starts and indentation ---- */
  bool nl = false, ws = false, ascii_indent = true;
  uint32_t indent = 0;
  for (;;) {
    int32_t c = lx->lookahead;
    if (c == '\n') {
      nl = true;
      ws = true;
      ascii_indent = true;
      indent = 0;
      skp(lx);
    } else if (c == ' ' || c == '\t' || c == 0xA0) {
      indent++;
      ws = true;
      if (c == 0xA0) ascii_indent = false;
      skp(lx);
    } else if (c == '\r' || c == '\f' || c == '\v') {
      ws = true;
      if (nl) ascii_indent = false;
      skp(lx);
    } else {
      break;
    }
  }
  if (s->byte_column == 0) check_byte_column(s, lx, nl && ascii_indent, indent);
  bool at_eof = at_end(lx);
  /* (see `EOL_OP`, `EOL_LET`: this is the start of the line the line break above spoke of) */
  bool top_level = s->len == 0 && s->overflow == 0;
  bool after_op_eol = nl && (s->eol & EOL_OP);
  bool after_op_eol_top = after_op_eol && (s->eol & EOL_TOP);
  bool let_body = nl && (s->eol & EOL_LET) && top_level && indent <= s->eol_col;
  bool let_body_top = let_body && indent == 0;
  if (after_op_eol || let_body) s->eol_scan = recovery ? 3 : 1;

  if (recovery) {
    bool has_r = s->len > 0 || s->overflow > 0;
    bool line0 = (nl && indent == 0) || at_eof;
    if (!at_eof && lx->lookahead == '/') {
      adv(lx);
      if (lx->lookahead == '-') {
        if (has_r && line0) {
          pop(s);
          return emit(s, lx, LAYOUT_END);
        }
        adv(lx);
        return finish_block_comment(lx, valid);
      }
      return false;
    }
    if (line0) {
      /* A command at column 0 closes every open block, even inside an error; once none is
       * open, a command start lets the parser resume at the top level. Known command words
       * close blocks; any other identifier (a project's command) only starts a command. */
      bool cmd = at_eof, head = false;
      int32_t c0 = lx->lookahead;
      uint32_t seed = (uint32_t)c0;
      if (c0 == '@' || c0 == '#') {
        adv(lx);
        cmd = c0 == '@' ? lx->lookahead == '[' : is_ascii_word_start(lx->lookahead);
      } else if (c0 == '%') {
        adv(lx);
        head = is_ascii_word_start(lx->lookahead);
      } else if (is_ascii_word_start(c0)) {
        char w[24];
        unsigned n = read_word(lx, w, sizeof(w));
        if (n < sizeof(w)) {
          seed = word_hash(w);
          cmd = word_in(w, COMMAND_WORDS) && !(strcmp(w, "deriving") == 0 && !deriving_instance(lx));
          head = !cmd && !word_in(w, CONTINUATION_WORDS);
        }
      }
      if (cmd && has_r) {
        pop(s);
        return emit(s, lx, LAYOUT_END);
      }
      if ((cmd || head) && !at_eof && !has_r) return emit_command_start(s, lx, seed);
    }
    return false;
  }

  bool has = s->len > 0 || s->overflow > 0;
  /* Most tokens are in the middle of a line where no block can open, and most of those decide
   * nothing (see `inert_mid_line`): answered before the rest, since bracket-dense text
   * (`((((x))))`) is a token per byte. */
  if (!nl && !valid[LAYOUT_START] && !valid[CALC_START] && !valid[CALC_STEPS_START] &&
      !valid[TACTIC_START] && !valid[WHERE_START] && !valid[ALTS_START]) {
    if (lx->lookahead == 'r' && valid[RAW_STRING]) {
      adv(lx);
      return raw_string_rest(lx);
    }
    if (inert_mid_line(lx->lookahead, ws, has, valid)) return false;
  }
  uint32_t top_entry = top_entry_of(s);
  uint32_t top = top_entry & COL_MASK;
  bool top_calc = (top_entry & CALC_FLAG) != 0 && s->overflow == 0;
  bool top_bar = (top_entry & BAR_FLAG) != 0 && s->overflow == 0;
  bool top_then = (top_entry & THEN_FLAG) != 0 && s->overflow == 0;
  bool top_steps = (top_entry & STEPS_FLAG) != 0 && s->overflow == 0;
  bool top_alts = (top_entry & ALTS_FLAG) != 0 && s->overflow == 0;
  bool v_calc = valid[CALC_START];
  bool v_steps = valid[CALC_STEPS_START];
  bool v_tac = valid[TACTIC_START];
  bool v_where = valid[WHERE_START];
  bool v_start = valid[LAYOUT_START] || v_calc || v_steps || v_tac || v_where;
  bool top_where = (top_entry & WHERE_FLAG) != 0 && s->overflow == 0;
  uint32_t top_ifc = s->overflow == 0 ? (top_entry & IFC_MASK) >> IFC_SHIFT : 0;
  bool top_tactic = (top_entry & TACTIC_FLAG) != 0 && s->overflow == 0;
  bool v_sep = valid[LAYOUT_SEP];
  bool v_end = valid[LAYOUT_END];
  bool v_cstart = valid[COMMAND_START], v_cend = valid[COMMAND_END];

  /* ---- A. end of file ---- */
  if (at_eof) {
    if (v_end) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    if (valid[COMMAND_END]) return emit(s, lx, COMMAND_END);
    return false;
  }

  /* after `e |>.f a b`, a binary operator is an error at any column (see `binary_symbol`);
   * the arguments end at the line's end (on the next line an argument would need
   * `checkColGt` against a column the scanner does not know: `let l := s |>.toArray` then
   * `l == t` below it) */
  if (valid[PIPE_CHECK]) {
    int32_t c0 = lx->lookahead;
    if (binary_symbol(c0)) return emit(s, lx, ERROR_SENTINEL);
    if (nl) {
      if (pipe_ascii_start(c0) || c0 == '<' || c0 == '/') {
        if (c0 == '<' || c0 == '/') adv(lx);
        bool tactic_seq = c0 == '<' && lx->lookahead == ';'; /* `<;>` */
        if (!tactic_seq && binary_ascii_run(lx, c0 == '<' || c0 == '/' ? c0 : 0))
          return emit(s, lx, ERROR_SENTINEL);
      }
      return emit(s, lx, PIPE_CHECK);
    }
  }

  /* ---- B. dedent ---- */
  /* In the first step of a `calc`, a line that starts with an operator
   * continues the step even when it is less indented (`calc a\n  ≤ b := p`). */
  /* In the first step of a `calc`, a less indented line still continues the
   * step (`calc a\n    ≤ b := p`) unless it starts a new step with `_` or
   * leaves the enclosing block. */
  bool calc_continuation = false;
  if (top_calc && nl && indent < top) {
    int32_t below = s->len >= 2 ? (int32_t)(below_entry_of(s) & COL_MASK) : -1;
    /* column 0 is where the next command starts, even when no block encloses the `calc` */
    calc_continuation = (int32_t)indent > below && indent > 0 && lx->lookahead != '_';
  }
  /* A tactic block opened on its opener's line (`next h => simp_all only`): a line left of
   * it but right of the enclosing block continues the tactic when it starts with what can
   * start no tactic and no item of an enclosing construct — `[`, `(`, `⟨`, a numeral, `:`,
   * an operator, `at`, `with`, `using`, `only`, `generalizing` — since no tactic can start
   * there (Lean checks the column where a tactic starts: `checkColGe` against the inner
   * block, `checkColEq` against the enclosing one). An identifier may be the next field of a
   * structure instance in braces around the block, which the scanner does not see. */
  if (has && nl && indent < top && v_end && !calc_continuation && (top_entry & SAME_FLAG) &&
      top_tactic) {
    int32_t below = s->len >= 2 ? (int32_t)(below_entry_of(s) & COL_MASK) : -1;
    if ((int32_t)indent > below) {
      int32_t c0 = lx->lookahead;
      bool cont = false;
      if (c0 == '[' || c0 == ':') {
        cont = true;
      } else if (c0 == '-' || c0 == '/') {
        adv(lx);
        cont = lx->lookahead != '-';
      } else if (is_sym(c0) && c0 != '.' && c0 != '#' && c0 != '@' && c0 != '|') {
        cont = true;
      } else if (is_ascii_word_start(c0)) {
        char w[16];
        unsigned n = read_word(lx, w, sizeof(w));
        cont = n < sizeof(w) && (strcmp(w, "at") == 0 || strcmp(w, "with") == 0 ||
                                 strcmp(w, "using") == 0 || strcmp(w, "only") == 0 ||
                                 strcmp(w, "generalizing") == 0);
      }
      if (cont) return false;
    }
  }
  /* The items of a top-level `where` that starts on the `where` line (`where foo (x : α) :`)
   * sit at that column, but their continuation lines may be less indented (Lean checks the
   * column only where an item starts): such a block ends at column 0 or on a command word. */
  bool where_continuation = top_where && s->len == 1 && indent > 0;
  /* A tactic block that starts on its opener's line keeps a less indented line that is still
   * right of the enclosing block when the line above ended with an operator (`_op_eol`):
   * `all_goals have h : a ∧` / `    b := by omega` (Lean's binary operators take their right
   * operand without a column check). */
  bool top_same_line_tactic = top_tactic && (top_entry & SAME_FLAG) && s->len >= 2;
  bool op_continuation = top_same_line_tactic && s->last == OP_EOL && nl && indent < top &&
                         indent > (below_entry_of(s) & COL_MASK);
  /* `if c then` / `else` ending the line above: the branch's block opens on this line at
   * any column, also left of a block opened on the line of the `if` (`else if c then` at
   * column 2, the branch at 4): Lean's `doSeq` / tactic sequence takes its position from its
   * first token, with no check against the blocks around it. */
  bool branch_opens = has && nl && v_start && (s->last == THEN || s->last == ELSE) &&
                      (top_entry & SAME_FLAG) && s->overflow == 0;
  /* An `else` line that has just closed a `then` branch goes to that branch's `if` when the
   * `if` can take it (see `else_goes_in` below): the block around the `if` stays open. */
  bool else_may_go_in = has && nl && s->last == THEN_CLOSED && valid[ELSE] &&
                        lx->lookahead == 'e';
  if (has && nl && indent < top && v_end && !calc_continuation && !where_continuation &&
      !op_continuation && !branch_opens && !else_may_go_in) {
    /* Once the block of a `try` is closed, a `catch` / `finally` line continues the `try`
     * in the block around it, at any column (Lean's `doCatch` checks none). */
    if (s->last == TRY_CLOSED && (lx->lookahead == 'c' || lx->lookahead == 'f')) {
      char w[8];
      unsigned n = read_word(lx, w, sizeof(w));
      if (n < sizeof(w) && (strcmp(w, "catch") == 0 || strcmp(w, "finally") == 0)) return false;
    }
    bool was_try = (top_entry & TRY_FLAG) != 0 && s->overflow == 0;
    pop(s);
    emit(s, lx, LAYOUT_END);
    if (was_try) s->last = TRY_CLOSED;
    else if (indent == 0 && s->len == 0 && s->overflow == 0) s->last = CLOSED_AT_COLUMN_0;
    else if (top_then) s->last = THEN_CLOSED;
    return true;
  }

  /* Column of the next token for a block opened on the same line (before any look ahead). */
  uint32_t same_line_col = 0;
  if ((v_start || valid[ALTS_START]) && !nl) same_line_col = column_here(s, lx);

  /* `structure S where mk ::` — the constructor on the `where` line is no field: the
   * fields' block opens after it. (Only a `where` block: the look ahead reads words.) */
  if (v_where && !nl && !v_tac && !v_calc && !v_steps &&
      is_ascii_word_start(lx->lookahead) && ctor_follows(lx))
    return false;

  /* ---- classify the next token (advancing is fine: every token emitted
   * after this point is zero-width, except `,` `|` and block comments
   * whose first characters we stop on) ---- */
  enum Kind k = K_OTHER;
  bool cmd_start = false, closing_word = false, continuation = false;
  bool where_word = false; /* a line starts with `where` */
  bool then_else = false, bar_spaced_after = false, tactic_start = false;
  bool hole_line = false; /* the line starts with `_ `: a `calc` step */
  bool lx_word_is_deriving = false;
  bool cmd_head = false; /* a column-0 word that starts a command (known or not) */
  int word_tok = -1; /* THEN or ELSE when the next word is one of them */
  char line_word[24]; /* the word at a line start, when it was read */
  unsigned line_word_len = 0;
  bool line_word_read = false;
  bool after_lt = false; /* the lexer stands right after a `<` */
  uint32_t lt_at = 0;     /* where that `<` is */
  int32_t c = lx->lookahead;

  if (is_closer(c)) {
    k = K_CLOSER;
  } else if (c == ',') {
    k = K_COMMA;
  } else if (c == '|') {
    adv(lx);
    if (!is_sym(lx->lookahead)) {
      k = K_BAR;
      bar_spaced_after = at_end(lx) || is_space(lx->lookahead);
    }
  } else if (c == '/') {
    adv(lx);
    if (lx->lookahead == '-') {
      adv(lx);
      k = K_BLOCK_COMMENT;
    }
  } else if (c == '-') {
    adv(lx);
    if (lx->lookahead == '-') k = K_LINE_COMMENT;
  } else if (c == '@') {
    adv(lx);
    /* `@[…]` starts a command at column 0; indented, only when a command word follows it
     * (`  @[simp] lemma …` in a namespace), not on a field (`  @[simp] go := …`). */
    if (lx->lookahead == '[') cmd_start = nl && (indent == 0 || attributes_then_command(lx));
  } else if (c == '#') {
    adv(lx);
    /* a `#word` command, unless the line above ended with an operator or a `,`: then the term
     * goes on (`(#x : T) =` / `#x := rfl`, `a ≤` / `#B * c`) */
    if (is_ascii_word_start(lx->lookahead))
      cmd_start = !(nl && (indent == 0 ? after_op_eol_top : after_op_eol));
  } else if (c == '%' && nl && indent == 0) {
    /* a project's command token at column 0 (SubVerso's `%example`, `%end`) */
    adv(lx);
    if (is_ascii_word_start(lx->lookahead)) cmd_head = true;
  } else if (c == '<') {
    lt_at = runtime_position(lx)->bytes;
    adv(lx);
    after_lt = lx->lookahead != ';';
    if (lx->lookahead == ';') {
      adv(lx);
      if (lx->lookahead == '>') continuation = true;
    }
  } else if (c == '_' && nl) {
    adv(lx);
    hole_line = lx->lookahead == ' ';
  } else if (c == 0xB7 /* · */ || c == '.') {
    if (nl) {
      adv(lx);
      if (lx->lookahead == ' ' || lx->lookahead == '\n') tactic_start = true;
    }
  } else if (is_ascii_word_start(c) && nl &&
             (v_start || has || v_cstart || v_cend || indent == 0 ||
              (top_level && (c == 'l' || c == 'h')))) {
    /* At a line start the whole word matters (commands, `deriving`, tactic
     * names, `then` / `else`). */
    char *w = line_word;
    unsigned n = read_word(lx, w, sizeof(line_word));
    line_word_len = n;
    line_word_read = true;
    if (indent == 0 && (v_cstart || v_cend)) {
      /* a word too long for `w` is no keyword: it is a project's command */
      if (n >= sizeof(line_word)) cmd_head = true;
      else if (strcmp(w, "deriving") == 0) cmd_head = deriving_instance(lx);
      else cmd_head = !word_in(w, CONTINUATION_WORDS);
      /* After a line that ended with an operator or a `,` the term goes on (Lean's binary
       * operators take their right operand at any column: `"…" ++` / `r##"…"##` at column 0);
       * only a command keyword, which no term takes, starts a command there. */
      if (cmd_head && (after_op_eol_top || let_body_top) &&
          (n >= sizeof(line_word) || !word_in(w, COMMAND_WORDS)))
        cmd_head = false;
    }
    if (n < sizeof(line_word)) {
      w[n] = 0;
      if (n == 4 && strcmp(w, "then") == 0) word_tok = THEN;
      else if (n == 4 && strcmp(w, "else") == 0) word_tok = ELSE;
      else if (strcmp(w, "catch") == 0 || strcmp(w, "finally") == 0) {
        /* they continue a `try` (no new item) */
        continuation = true;
      } else {
        if (word_in(w, COMMAND_WORDS)) {
          /* `open … in` and `set_option … in` are also tactics */
          /* `open … in` and `set_option … in` are also tactics; `private` / `protected`
           * also modify structure fields */
          /* `module` heads a file only (Lean's `Module.header`); indented, it is a tactic */
          bool tactic_too = strcmp(w, "open") == 0 || strcmp(w, "set_option") == 0 ||
                            strcmp(w, "module") == 0;
          /* Indented, a modifier starts a command only before a command word
           * (`  private def …` in a namespace): `private` / `protected` also modify
           * structure fields, and `unsafe e` is a term. */
          if (indent > 0 && word_in(w, MODIFIER_WORDS)) {
            cmd_start = modifiers_then_command(lx);
          } else if (indent == 0 || !tactic_too) {
            cmd_start = true;
          }
        }
        if (c == 'w' && has && v_end && strcmp(w, "where") == 0) where_word = true;
        if ((c == 'd' || c == 't') && has && v_end && word_in(w, CLOSING_WORDS)) {
          closing_word = true;
          lx_word_is_deriving = strcmp(w, "deriving") == 0;
        }
        if (indent > top && v_sep && top_tactic && word_in(w, TACTIC_WORDS)) tactic_start = true;
      }
      then_else = word_tok >= 0;
    }
  } else if (ws && (c == 't' || c == 'e') && (v_end || valid[THEN] || valid[ELSE])) {
    /* Elsewhere only `then` / `else` matter: compare while reading, so that
     * other words cost one or two characters. A word glued to the token before it is a
     * field name (`x |>.then y`: Lean reads a raw identifier after `|>.`), not the keyword. */
    const char *kw = c == 't' ? "then" : "else";
    unsigned i = 0;
    while (kw[i] && lx->lookahead == kw[i]) {
      adv(lx);
      i++;
    }
    if (!kw[i] && !is_ascii_word(lx->lookahead)) word_tok = c == 't' ? THEN : ELSE;
    then_else = word_tok >= 0;
  }

  bool is_comment = k == K_LINE_COMMENT || k == K_BLOCK_COMMENT;

  /* A line of a command's term that starts with `let` / `have` (see `EOL_LET`): the zero-width
   * `_op_eol` keeps its column in the state; the scans at this line start then take it as
   * the line `eol` speaks of, and the state past it keeps the `let` (see `scan`). */
  if (!recovery && nl && top_level && indent > 0 && !v_start && line_word_read &&
      line_word_len < sizeof(line_word) && word_in(line_word, BODY_WORDS) && valid[OP_EOL]) {
    uint8_t col = indent > 255 ? 255 : (uint8_t)indent;
    s->let_line = col;
    if (!let_body) {
      s->eol = (uint8_t)((s->eol & (EOL_OP | EOL_TOP)) | EOL_LET);
      s->eol_col = col;
      s->eol_set = true;
      lx->result_symbol = OP_EOL;
      return true;
    }
  }

  /* (see `else_may_go_in`) The `else` goes to the `if` whose `then` branch it has just
   * closed when the block around that `if` is a tactic block (Lean's tactic `if` takes its
   * `else` at any column) or was opened on the line of the `if` (`else if c then`: Lean's
   * `doIf` reads `else if` as one more branch of the first `if`, whose column the `else`
   * line keeps). Any other line closes the block, as a less indented line does. */
  if (else_may_go_in && indent < top && v_end) {
    if (word_tok == ELSE && (top_tactic || (top_entry & SAME_FLAG))) {
      lx->mark_end(lx);
      return emit(s, lx, ELSE);
    }
    pop(s);
    emit(s, lx, LAYOUT_END);
    if (top_then) s->last = THEN_CLOSED;
    return true;
  }

  /* A column-0 comment ends a project's command or a column-0 block (fields at column 0)
   * only when a command (or the end of the file) follows it: otherwise the command or block
   * goes on after it (Lean's front end stops only at the next command). A block comment that
   * does not end them is preceded by the zero-width `_comment_guard` (an extra): its token
   * cannot be returned after looking past it, and the guard tells the next scan to take it
   * as a plain comment. */
  bool comment_ends = is_comment;
  if (is_comment && nl && indent == 0) {
    if (s->last == COMMENT_GUARD) {
      comment_ends = false;
    } else if (v_cend || (has && v_end && top == 0)) {
      comment_ends = comments_then_command(lx, k == K_BLOCK_COMMENT);
      if (!comment_ends && k == K_BLOCK_COMMENT) return emit(s, lx, COMMENT_GUARD);
    }
  }

  /* A line at column 0 that closed every block (a tactic block, a `calc`'s steps) cannot go
   * on with the term around them: Lean checks a block's column where each of its items starts
   * (`checkColGe`) and the command's term takes no line left of its own column, so `≤ b := h`
   * there is where the next command would start, and none does (Lean: "unexpected token '≤';
   * expected command"). A command start the parser cannot take here makes the error; recovery
   * resumes at the next command. Only an operator is decided here: a word, `|`, a bracket or a
   * comment at column 0 is read as before (`| 0 => …` alternatives, `deriving`, fields). */
  if (nl && indent == 0 && !has && s->last == CLOSED_AT_COLUMN_0 && k == K_OTHER &&
      !line_word_read && is_sym(c) && c != '.' && c != '#' && c != '@' && c != '|' &&
      c != '%')
    return emit(s, lx, ERROR_SENTINEL);

  /* ---- command boundaries at column 0 ---- */
  /* A project's command ends before the next column-0 command or comment; a command may
   * start at a column-0 word (not one that continues the command above), `@[` or `#…`. */
  if (nl && indent == 0 && (v_cstart || v_cend)) {
    bool starts = cmd_head || ((c == '@' || c == '#') && cmd_start);
    if (v_cend && (starts || (is_comment && comment_ends)))
      return emit(s, lx, COMMAND_END);
    if (v_cstart && starts) return emit_command_start(s, lx, (uint32_t)c);
  }
  /* Lean's own `#word` command in the middle of a line ends the command before it (see
   * `HASH_COMMAND_WORDS`); the lexer stands right after the `#`. */
  if (!nl && c == '#' && cmd_start && !has && (v_cstart || v_cend) && !recovery) {
    char w[16];
    unsigned n = read_word(lx, w, sizeof(w));
    if (n < sizeof(w) && word_in(w, HASH_COMMAND_WORDS))
      return v_cend ? emit(s, lx, COMMAND_END) : emit_command_start(s, lx, (uint32_t)c);
  }
  /* An indented `#word` that starts a line where no block is open starts a command (the
   * grammar takes a `#word` command only after a command start, `… in` or at the beginning
   * of the file: see `_hash_command`). Not in a project's command, which may go on with a
   * term there (`problem p :` / `  #s = 2`). */
  if (nl && indent > 0 && c == '#' && cmd_start && !has && v_cstart && !v_cend)
    return emit_command_start(s, lx, (uint32_t)c);
  /* Indented, where no block is open and no term can go on (after `namespace N`, `end`, …),
   * a word that continues nothing starts a command, a project's own too (Lean's front end
   * starts the next command where the last one ended, at any column). A command word on an
   * indented line ends a project's command. */
  if (nl && indent > 0 && !has && line_word_read) {
    if (v_cend && cmd_start) return emit(s, lx, COMMAND_END);
    /* (a term part, `,` or `|` that the command could still take means it goes on) */
    bool goes_on = valid[ABS_BAR] || valid[COMMA] || valid[BAR] || valid[TERM_PREFIX_START] ||
                   valid[MORE_NAMES];
    /* (a tactic's name starts no command: after a declaration's `where` definitions, a tactic
     * line is the error Lean reports there) */
    if (v_cstart && !v_cend && !goes_on && line_word_len < sizeof(line_word) &&
        !word_in(line_word, CONTINUATION_WORDS) && !word_in(line_word, TACTIC_WORDS) &&
        (strcmp(line_word, "deriving") != 0 || deriving_instance(lx)))
      return emit_command_start(s, lx, word_hash(line_word));
  }

  /* A known command word at column 0 where nothing can end or continue by layout (a term
   * that went wrong earlier): the command starts here all the same. If the parser cannot
   * take the start, its error is here, and recovery resumes with this command (one error
   * costs one command, as in Lean). */
  if (nl && indent == 0 && !has && cmd_start && !v_cstart && !v_cend && !v_start && !v_sep &&
      !v_end) {
    /* not again where the parser has just taken this line's start */
    uint16_t here = command_start_state(lx, (uint32_t)c);
    if (s->last != here) {
      s->last = here;
      s->notation_depth = 0;
      lx->result_symbol = COMMAND_START;
      return true;
    }
  }

  /* ---- C. open a block ---- */
  /* The alternatives of `first` sit at the column of the first `|`, wherever
   * that is relative to the enclosing blocks. */
  if (valid[ALTS_START] && k == K_BAR) {
    uint32_t col = nl ? indent : same_line_col;
    if (col > COL_MASK) col = COL_MASK;
    push(s, col | ALTS_FLAG);
    return emit(s, lx, ALTS_START);
  }
  if (v_start && !is_comment) {
    /* A column-0 command right after an opener (`instance : C where` with no fields)
     * gets an empty block, which the command closes at once. The optional `_ = … := …`
     * steps of a `calc` open only at a `_`. */
    bool blocked = v_steps && !valid[LAYOUT_START] && !v_calc && !v_tac && !v_where && c != '_';
    if (!blocked) {
      uint32_t col = nl ? indent : same_line_col;
      bool other = v_sep || v_end;
      /* `calc` steps may sit at the column of the enclosing tactic block */
      bool step_here = v_steps && c == '_' && col == top;
      if (!other || !has || col > top || step_here || branch_opens) {
        if (col > COL_MASK) col = COL_MASK;
        bool tac = v_tac && !valid[LAYOUT_START] && !v_calc && !v_steps;
        bool where = v_where && !valid[LAYOUT_START] && !v_calc && !v_steps && !tac;
        uint32_t flags = v_calc ? CALC_FLAG : v_steps ? STEPS_FLAG : tac ? TACTIC_FLAG : 0;
        if (where) flags |= nl ? WHERE_BLOCK : WHERE_BLOCK | WHERE_FLAG;
        /* only the block of a `first` alternative opens right after its `|` (`first |t1|t2`);
         * the block after `| pat =>` (the last external token is also that `|`) is not one */
        if (s->last == BAR && top_alts) flags |= BAR_FLAG;
        if (!nl) flags |= SAME_FLAG;
        if (s->last == THEN) flags |= THEN_FLAG;
        if (s->last == TRY_BLOCK) flags |= TRY_FLAG;
        if (!nl && !where) {
          int m = unmatched_then_else(s, lx);
          if (m >= 0 && m < 7) flags |= (uint32_t)(m + 1) << IFC_SHIFT;
        }
        push(s, col | flags);
        return emit(s, lx, v_calc    ? CALC_START
                           : v_steps ? CALC_STEPS_START
                           : tac     ? TACTIC_START
                           : where   ? WHERE_START
                                     : LAYOUT_START);
      }
    }
  }

  /* after `e |>.f a b`, an ASCII binary operator (the run it reads is what the next test
   * would skip) */
  if (valid[PIPE_CHECK] && k == K_OTHER && !line_word_read &&
      ((c == '<' && after_lt) || c == '/' || pipe_ascii_start(c)) &&
      binary_ascii_run(lx, c == '<' || c == '/' ? c : 0))
    return emit(s, lx, ERROR_SENTINEL);

  /* ---- operator at the end of the line (a zero-width extra in a tactic block; remembered
   * where the next line's start depends on it, see `EOL_OP`) ---- */
  /* (nothing below decides anything at such a symbol in the middle of a line; only outside
   * every block and in a tactic block, where it reads the run anyway, is it remembered) */
  if (!nl && (!has || top_tactic) && k == K_OTHER && c != '|' && c != '/' && c != '-' &&
      c != '@' && c != '#' && c != '<' && c != '.' && c != 0xB7 && eol_symbol(c) &&
      !notation_closer(c) && !is_notation_closer(c)) {
    bool op_eol = top_tactic && valid[OP_EOL] && s->last != OP_EOL;
    int32_t end = c;
    while (eol_symbol(lx->lookahead)) {
      end = lx->lookahead;
      adv(lx);
    }
    bool matters = false;
    if (!note_op_eol(s, lx, &matters)) return false;
    /* (not again when the parser comes back to the operator after the mark) */
    bool mark = matters && !ends_term(end) && valid[OP_EOL] && !(s->eol & EOL_OP);
    if (mark) set_op_eol(s);
    if (op_eol) s->last = OP_EOL;
    if (!op_eol && !mark) return false;
    lx->result_symbol = OP_EOL;
    return true;
  }

  /* ---- D. decisions at the start of a line ---- */
  if (has && nl) {
    if ((cmd_start || (indent == 0 && is_comment && comment_ends)) && v_end) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    /* A command at column 0 while the block cannot end here (e.g. an
     * unclosed bracket): emit the block end anyway.  The parser then reports
     * the problem (typically a MISSING bracket) and recovers before the
     * command instead of swallowing it. */
    if (cmd_start && indent == 0 && !v_sep && !v_start) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    /* `deriving` ends the fields of a structure; `termination_by` and
     * `decreasing_by` at the block column continue the previous item (they
     * belong to it, e.g. to a `where` definition) */
    if (indent <= top && closing_word && v_end && (c == 'd' && lx_word_is_deriving)) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    /* A less indented line that goes on with a `where` item begun on the `where` line (see
     * `where_continuation`) continues its type or value; a tactic's name cannot (Lean reads it
     * as a keyword, and an argument would need `checkColGt` against the item's column): the
     * block ends, and with it the declaration. */
    if (top_where && s->len == 1 && indent < top && v_end && line_word_read &&
        line_word_len < sizeof(line_word) && word_in(line_word, TACTIC_WORDS) &&
        !word_in(line_word, CONTINUATION_WORDS)) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    /* A line that starts with `where` ends every block inside a declaration's body, at any
     * column: `where` is a keyword (Lean's `whereDecls` follows the body, `declBody`), which
     * no tactic, term or `do` element takes. The local definitions then end the command:
     * a tactic line after them is an error, as in Lean ("unexpected token 'have'; expected
     * command"). (Not the fields of a `where` block, whose line it cannot start either.) */
    if (where_word && v_end && !(top_entry & WHERE_BLOCK)) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    /* no tactic takes them: at or left of a tactic block's column they end the block (Lean:
     * they follow the declaration's body, `Termination.suffix`) */
    if (indent <= top && closing_word && v_end && top_tactic) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    /* a `_ … := …` line cannot continue a tactic block: it is the next
     * step of an enclosing `calc` */
    if (hole_line && !top_steps && !top_calc && indent <= top && v_end) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    /* a `_ … := …` line more indented than the first step of a `calc` starts the later
     * steps (Lean: `withPosition((calcStep ppLine)*)` fixes their column at the first `_`)
     * when the first step cannot take the `_` as an argument. After the first step's proof
     * term (`:= h`, not a block the line has just closed, as `:= by simp`) it
     * can: Lean's `argument` checks `checkColGt` against `withPosition(calcFirstStep)`, the
     * first step's column, so the line reads `h _ = c`, and its `:=` is an error ("unexpected
     * token ':='; expected command"). (After a block comment the scanner does not know what
     * the comment followed: the line starts the steps.) */
    if (hole_line && top_calc && indent > top && v_end && (top_entry & PROOF_FLAG) &&
        s->last != LAYOUT_END && s->last != THEN_CLOSED && s->last != BLOCK_COMMENT &&
        s->last != COMMENT_GUARD &&
        assign_on_line(lx))
      return emit(s, lx, ERROR_SENTINEL);
    if (hole_line && top_calc && indent > top && v_end) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    /* only `| …` lines continue the alternatives of a `first` */
    if (top_alts && indent <= top && k != K_BAR && !is_comment && v_end) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    /* only `_ … := …` lines continue the steps of a `calc`, and lines at their column that
     * go on with the step: an operator or its `:=` (Lean's `calcStep` checks the column
     * only where a step starts; a binary operator takes its operand without a check) */
    if (top_steps && indent == top && c != '_' && !is_comment && v_end &&
        !(c == ':' || (is_sym(c) && c != '.' && c != '#' && c != '@' && c != '|'))) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    if (top_steps && indent == top && !is_comment &&
        (c == ':' || (is_sym(c) && c != '.' && c != '#' && c != '@' && c != '|')))
      continuation = true;
    /* In a tactic block, a line that starts with an operator continues the tactic above
     * (`have :\n  (a : T)\n  = b := rfl`): no tactic starts with one, and Lean checks the
     * column only where a tactic starts (`checkColGe`). */
    /* So does a line that starts with what can start no tactic: a numeral, `:`, `‖`, `⟨`,
     * `[`, or `at` / `with` / `using` / `only` / `generalizing` (a tactic's clauses). */
    if (top_tactic && indent == top && !is_comment && c != '.' && c != '#' && c != '@' &&
        c != '|' &&
        (is_sym(c) || c == 0xAC /* ¬ */ || c == 0x2016 /* ‖ */ || c == 0x27E8 /* ⟨ */ ||
         c == '[' || c == ':' || (c >= '0' && c <= '9')))
      continuation = true;
    if (top_tactic && indent == top && line_word_read && line_word_len < sizeof(line_word) &&
        (strcmp(line_word, "at") == 0 || strcmp(line_word, "with") == 0 ||
         strcmp(line_word, "using") == 0 || strcmp(line_word, "only") == 0 ||
         strcmp(line_word, "generalizing") == 0))
      continuation = true;
    /* In a tactic block, a line at the block column that starts with a string continues the
     * tactic above (no tactic starts with a literal: `Hint` / `"text"`). A more indented line
     * starts a new item when the one above can take no more parts (it ended with a block:
     * `· tac` then a less indented `Hint "…"`; `if c then continue` then a `for` line), as
     * Lean's `checkColGe` (`many1Indent`, `sepByIndent`) allows. */
    bool string_arg = top_tactic && c == '"' && indent == top;
    /* Lean's tactic block (`sepByIndent`: `checkColGe` where an item starts, `;` or
     * `checkColEq` between items) starts an item without `;` only at its column: a more
     * indented line goes on with the item above, or is an error. A word that starts a term as
     * well as a tactic (`have`, `show`, `suffices`, `calc`) goes on with the item where a
     * term is expected there: after an operator, `=>`, `then` or `else` that ended the line
     * above, or where a term-level `have` / `let` / `suffices` line of the item waits for its
     * body (Lean's `optSemicolon`: `have h := v` then the body on the next line). */
    bool term_word = top_tactic && indent > top && tactic_start && line_word_read &&
                     line_word_len < sizeof(line_word) && word_in(line_word, TERM_WORDS);
    if (term_word && (s->last == OP_EOL || s->last == THEN || s->last == ELSE ||
                      (top_entry & HAVE_FLAG)))
      tactic_start = false;
    bool item_done = indent > top && !valid[ABS_BAR] && !top_calc && !top_steps && !top_alts &&
                     !(top_entry & WHERE_BLOCK);
    if (v_sep && !is_comment && !continuation && !then_else && !closing_word && k != K_BAR &&
        k != K_CLOSER && k != K_COMMA && !string_arg &&
        (indent == top || (indent > top && (tactic_start || item_done)))) {
      /* a new item: no term of the item above waits for its body any more */
      if (top_tactic && (top_entry & HAVE_FLAG)) set_top_entry(s, top_entry & ~HAVE_FLAG);
      return emit(s, lx, LAYOUT_SEP);
    }
    /* A more indented `have` / `let` / `suffices` line that goes on with a tactic (where a
     * term part may come: not a line that has just started an item) is a term whose body may
     * follow (see `term_word`): the
     * tactic block remembers it, with the zero-width `_op_eol` (an extra) to keep the state
     * (`last` tells it from an operator's). */
    if (top_tactic && indent > top && !is_comment && s->last != HAVE_LINE &&
        valid[ABS_BAR] && valid[OP_EOL] &&
        line_word_read && line_word_len < sizeof(line_word) && word_in(line_word, BODY_WORDS)) {
      set_top_entry(s, top_entry | HAVE_FLAG);
      lx->result_symbol = OP_EOL;
      s->last = HAVE_LINE;
      return true;
    }
  }

  /* ---- bracket notations ---- */
  if ((k == K_OTHER || k == K_COMMA) && !line_word_read && !after_lt &&
      (valid[NOTATION_OPEN] || s->notation_depth > 0) && notation_token(s, lx, valid))
    return true;

  /* ---- an HTML element in a term ---- */
  if (valid[JSX_ELEMENT] && after_lt && jsx_element(s, lx, lt_at)) return true;

  /* ---- a term's `open … in` / `set_option … in` ---- */
  if (valid[TERM_PREFIX_START] && k == K_OTHER && (c == 'o' || c == 's')) {
    if (!line_word_read) line_word_len = read_word(lx, line_word, sizeof(line_word));
    if (line_word_len < sizeof(line_word) &&
        (strcmp(line_word, "open") == 0 || strcmp(line_word, "set_option") == 0) &&
        term_prefix_follows(lx))
      return emit(s, lx, TERM_PREFIX_START);
  }

  /* ---- E/F. `|` ---- */
  if (k == K_BAR) {
    bool vb = valid[BAR], va = valid[ABS_BAR];
    bool spaced = ws && bar_spaced_after;
    if (vb && va && nl && !bar_spaced_after) {
      /* A line that starts with a tight `|`: an alternative (`|0 => …`) has a `=>` on the
       * line, an absolute value continuing a term (`|x| ≤ d`) does not. */
      lx->mark_end(lx);
      return emit(s, lx, arrow_on_line(lx) ? BAR : ABS_BAR);
    }
    /* the alternatives of `first | t1 | t2` end at the next `|` on their line, even when the
     * tactic could take it (`let f : T | pat => v`) */
    if (top_bar && !nl && has && v_end) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    /* a spaced `|` in the middle of a line among a tactic's arguments is the tactic's (a
     * project's `my_tac a | b`) unless a `=>` follows on the line: then it begins the next
     * alternative of a construct around the tactic (`| inl h => simp | inr h => …`) */
    if (valid[ARG_BAR] && !nl && spaced) {
      lx->mark_end(lx);
      /* (where a tactic takes arguments it also takes alternatives: the `|` is a BAR) */
      return emit(s, lx, arrow_on_line(lx) ? (vb ? BAR : ARG_BAR) : ARG_BAR);
    }
    if (vb && (!va || spaced || nl)) {
      lx->mark_end(lx);
      return emit(s, lx, BAR);
    }
    /* a spaced `|` that the block cannot use belongs to an enclosing
     * construct; so does a tight one that follows `first |t1|t2` */
    if (has && v_end && !vb && (spaced || top_bar)) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
    if (va) {
      lx->mark_end(lx);
      return emit(s, lx, ABS_BAR);
    }
    return false;
  }

  /* ---- E. tokens that close the innermost block when it cannot use them ---- */
  if (has && v_end) {
    bool close = false;
    if (k == K_CLOSER) close = true;
    else if (k == K_COMMA && !valid[COMMA]) close = true;
    /* `else` after a `then` branch ends it, unless it starts a line at or right of the
     * branch's column: then it is the `else` of an `if` inside the branch (Lean's `doIf`
     * takes an `else` at or right of its own column, `checkColGe`). */
    else if (word_tok == ELSE && top_then && !(nl && indent >= top)) close = true;
    else if (then_else && !nl && top_ifc == 1) close = true;
    else if (then_else && !valid[word_tok]) close = true;
    if (close) {
      pop(s);
      return emit(s, lx, LAYOUT_END);
    }
  }

  /* ---- F. consuming tokens ---- */
  if (then_else && valid[word_tok]) {
    /* one `then` / `else` fewer before the one that closes the block */
    if (top_ifc > 1 && !nl) set_top_entry(s, top_entry_of(s) - (1u << IFC_SHIFT));
    lx->mark_end(lx);
    return emit(s, lx, word_tok);
  }
  if (k == K_COMMA && valid[COMMA]) {
    adv(lx);
    lx->mark_end(lx);
    bool matters = false;
    if (note_op_eol(s, lx, &matters) && matters) {
      set_op_eol(s);
    } else {
      s->eol = s->eol_col = 0;
      s->eol_set = true;
    }
    return emit(s, lx, COMMA);
  }
  if (k == K_BLOCK_COMMENT) {
    if (s->last == COMMENT_GUARD) s->last = BLOCK_COMMENT; /* the guard covers one comment */
    return finish_block_comment(lx, valid);
  }
  /* a raw string (the lexer is on its `r`, or after it when the line's word was read) */
  if (c == 'r' && valid[RAW_STRING] && (!line_word_read || line_word_len == 1)) {
    if (!line_word_read) adv(lx);
    return raw_string_rest(lx);
  }
  return false;
}

/* Tokens that sit at the start of the scan, before the line break: a scan there sees the same
 * line start again. */
static inline bool zero_width_at_start(int32_t t) {
  switch (t) {
    case LAYOUT_START: case LAYOUT_SEP: case LAYOUT_END: case COMMAND_END: case TACTIC_START:
    case CALC_START: case CALC_STEPS_START: case ALTS_START: case WHERE_START: case OP_EOL:
    case TRY_BLOCK: case CALC_PROOF: case COMMENT_GUARD: case TERM_PREFIX_START:
      return true;
    default:
      return false;
  }
}

/* `scan_token`, and the line break it remembers (see `eol`): the scans at the start of the
 * line after it see it; the first that moves past the line break (a token that is not
 * zero-width there) clears it; and where they would leave the token to the grammar's lexer,
 * two zero-width `_op_eol` (extras) are left instead, one here, one past the line break, so
 * that the state of the next token says nothing about this line break. */
static bool scan(Scanner *s, TSLexer *lx, const bool *valid) {
  if (s->eol & EOL_CONSUME) {
    while (is_space(lx->lookahead)) skp(lx);
    lx->mark_end(lx);
    s->eol &= EOL_LET;
    if (!s->eol) s->eol_col = 0;
    lx->result_symbol = OP_EOL;
    return true;
  }
  /* (nothing remembered: no scan at a line start it speaks of, and `scan_token` sets what it
   * remembers itself; one call of `scan_token`, which the compiler then puts in line) */
  bool remembered = s->eol != 0;
  if (remembered) {
    s->eol_scan = 0;
    s->eol_set = false;
    s->let_line = 0;
  }
  bool r = scan_token(s, lx, valid);
  if (!remembered) return r;
  /* (a command starts: nothing of the one before goes on) */
  if (r && lx->result_symbol == COMMAND_START) {
    s->eol = s->eol_col = 0;
    return r;
  }
  if (s->eol_set || s->eol_scan == 0) return r;
  if (s->eol_scan == 3) {
    s->eol = s->eol_col = 0;
    return r;
  }
  if (!r) {
    /* (a `let` line keeps the `let`, at its own column, past the line break) */
    s->eol = s->let_line ? EOL_CONSUME | EOL_LET : EOL_CONSUME;
    s->eol_col = s->let_line;
    lx->result_symbol = OP_EOL;
    return true;
  }
  if (!zero_width_at_start((int32_t)lx->result_symbol)) s->eol = s->eol_col = 0;
  return r;
}

void *tree_sitter_lean_external_scanner_create(void) {
  Scanner *s = (Scanner *)calloc(1, sizeof(Scanner));
  if (s) s->last = 0xFFFF;
  return s;
}

void tree_sitter_lean_external_scanner_destroy(void *payload) { free(payload); }

/* The state is serialized after every external token and restored before every scan, so its
 * size and its decoding are paid per token (and above 24 bytes tree-sitter allocates a copy
 * per token). The header is followed by the runs as they are kept (see `Run`): a shallow
 * state fits in a few words, and blocks nested on one long line (whose columns are clamped to
 * COL_MASK, so their entries repeat) cost one word whatever their depth. */
/* overflow, last, notation_depth, eol, eol_col */
#define STATE_HEADER (2 * sizeof(uint16_t) + 3)
_Static_assert(STATE_HEADER + sizeof(Run) * MAX_DEPTH <= TREE_SITTER_SERIALIZATION_BUFFER_SIZE,
               "the deepest state fits the buffer");
_Static_assert(MAX_DEPTH <= (1u << (32 - RUN_SHIFT)), "a run's length fits its bits");

/* (the header's fields are kept in this order, one after the other, so that they are copied
 * in and out as one block) */
_Static_assert(offsetof(Scanner, last) == offsetof(Scanner, overflow) + 2 &&
                   offsetof(Scanner, notation_depth) == offsetof(Scanner, overflow) + 4 &&
                   offsetof(Scanner, eol) == offsetof(Scanner, overflow) + 5 &&
                   offsetof(Scanner, eol_col) == offsetof(Scanner, overflow) + 6,
               "the state's header is contiguous");

unsigned tree_sitter_lean_external_scanner_serialize(void *payload, char *buffer) {
  Scanner *s = (Scanner *)payload;
  memcpy(buffer, &s->overflow, STATE_HEADER);
  /* `append` merges equal neighbours, so the runs are already maximal: equal stacks give
   * equal bytes (tree-sitter compares states by their bytes). */
  memcpy(buffer + STATE_HEADER, s->runs, s->nruns * sizeof(Run));
  return STATE_HEADER + s->nruns * sizeof(Run);
}

void tree_sitter_lean_external_scanner_deserialize(void *payload, const char *buffer,
                                                   unsigned length) {
  Scanner *s = (Scanner *)payload;
  s->len = 0;
  s->nruns = 0;
  if (length < STATE_HEADER) {
    s->overflow = 0;
    s->last = 0xFFFF;
    s->notation_depth = 0;
    s->eol = 0;
    s->eol_col = 0;
    if (length == 0) { /* a new parse */
      s->jsx_failed_until = 0;
      s->then_free_from = s->then_free_to = 0;
    }
    return;
  }
  memcpy(&s->overflow, buffer, STATE_HEADER);
  unsigned n = (length - STATE_HEADER) / sizeof(Run);
  if (n > MAX_DEPTH) n = MAX_DEPTH;
  memcpy(s->runs, buffer + STATE_HEADER, n * sizeof(Run));
  /* The depth is the runs' lengths summed (a few runs), capped at MAX_DEPTH, so that any bytes
   * give a consistent stack. */
  unsigned len = 0, i = 0;
  for (; i < n; i++) {
    unsigned count = (s->runs[i] >> RUN_SHIFT) + 1;
    if (count > MAX_DEPTH - len) {
      if (len == MAX_DEPTH) break;
      count = MAX_DEPTH - len;
      s->runs[i] = (s->runs[i] & ENTRY_MASK) | (uint32_t)(count - 1) << RUN_SHIFT;
    }
    len += count;
  }
  s->nruns = (uint16_t)i;
  s->len = (uint16_t)len;
}

bool tree_sitter_lean_external_scanner_scan(void *payload, TSLexer *lexer,
                                            const bool *valid_symbols) {
  return scan((Scanner *)payload, lexer, valid_symbols);
}
