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
  ERROR_SENTINEL,
};

#define MAX_DEPTH 250

typedef struct {
  uint16_t len;
  uint16_t cols[MAX_DEPTH];
  /* number of pushes that did not fit (kept so pops stay balanced) */
  uint16_t overflow;
} Scanner;

static inline void adv(TSLexer *lx) { lx->advance(lx, false); }
static inline void skp(TSLexer *lx) { lx->advance(lx, true); }

#define CALC_FLAG 0x8000u
#define COL_MASK 0x7FFFu

static inline void push(Scanner *s, uint32_t col) {
  if (col > 0xFFFF) col = 0xFFFF;
  if (s->len < MAX_DEPTH) {
    s->cols[s->len++] = (uint16_t)col;
  } else {
    s->overflow++;
  }
}

static inline void pop(Scanner *s) {
  if (s->overflow > 0) {
    s->overflow--;
  } else if (s->len > 0) {
    s->len--;
  }
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

static bool word_in(const char *w, const char *const *list) {
  for (; *list; list++) {
    if (strcmp(w, *list) == 0) return true;
  }
  return false;
}

static const char *const COMMAND_WORDS[] = {
  "theorem", "lemma", "def", "abbrev", "instance", "example", "axiom", "opaque",
  "structure", "class", "inductive", "namespace", "section", "end", "open",
  "import", "variable", "universe", "set_option", "attribute", "mutual",
  "noncomputable", "private", "protected", "public", "partial", "unsafe",
  "nonrec", "local", "scoped", "macro", "macro_rules", "syntax", "elab",
  "elab_rules", "notation", "notation3", "infix", "infixl", "infixr", "prefix",
  "postfix", "declare_syntax_cat", "deriving", "omit", "include", "export",
  "module", "initialize", "termination_by", "decreasing_by", NULL,
};

static const char *const CLOSING_WORDS[] = {
  "deriving", "termination_by", "termination_by?", "decreasing_by", NULL,
};

enum Kind {
  K_OTHER,
  K_CLOSER,
  K_COMMA,
  K_BAR,
  K_LINE_COMMENT,
  K_BLOCK_COMMENT,
};

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
  while (!lx->eof(lx)) {
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
  /* An unterminated comment runs to the end of the file (Lean does the same
   * and reports an error; we keep the tree usable). */
  lx->mark_end(lx);
  lx->result_symbol = type;
  return valid[type];
}

static bool scan(Scanner *s, TSLexer *lx, const bool *valid) {
  bool recovery = valid[ERROR_SENTINEL];

  if (!recovery && valid[INTERP_CONTENT]) {
    bool any = false;
    while (!lx->eof(lx) && lx->lookahead != '"' && lx->lookahead != '{') {
      if (lx->lookahead == '\\') {
        adv(lx);
        if (lx->eof(lx)) break;
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
    while (!lx->eof(lx)) {
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

  /* Layout tokens are zero-width and sit before the whitespace, so that the
   * next scan sees the same line break again. */
  lx->mark_end(lx);

  /* ---- skip whitespace, tracking line starts and indentation ---- */
  bool nl = false, ws = false;
  uint32_t indent = 0;
  for (;;) {
    int32_t c = lx->lookahead;
    if (c == '\n') {
      nl = true;
      ws = true;
      indent = 0;
      skp(lx);
    } else if (c == ' ' || c == '\t' || c == 0xA0) {
      indent++;
      ws = true;
      skp(lx);
    } else if (c == '\r' || c == '\f' || c == '\v') {
      ws = true;
      skp(lx);
    } else {
      break;
    }
  }
  bool at_eof = lx->eof(lx);

  if (recovery) {
    bool has_r = s->len > 0 || s->overflow > 0;
    bool line0 = (nl && indent == 0) || at_eof;
    if (!at_eof && lx->lookahead == '/') {
      adv(lx);
      if (lx->lookahead == '-') {
        if (has_r && line0) {
          pop(s);
          lx->result_symbol = LAYOUT_END;
          return true;
        }
        adv(lx);
        return finish_block_comment(lx, valid);
      }
      return false;
    }
    if (has_r && line0) {
      /* A command at column 0 closes every open block, even inside an error. */
      bool cmd = at_eof;
      int32_t c0 = lx->lookahead;
      if (c0 == '@' || c0 == '#') {
        adv(lx);
        cmd = c0 == '@' ? lx->lookahead == '[' : is_ascii_word_start(lx->lookahead);
      } else if (is_ascii_word_start(c0)) {
        char w[24];
        unsigned n = 0;
        while (is_ascii_word(lx->lookahead)) {
          if (n < sizeof(w) - 1) w[n] = (char)lx->lookahead;
          n++;
          adv(lx);
        }
        if (n < sizeof(w)) {
          w[n] = 0;
          cmd = word_in(w, COMMAND_WORDS);
        }
      }
      if (cmd) {
        pop(s);
        lx->result_symbol = LAYOUT_END;
        return true;
      }
    }
    return false;
  }

  bool has = s->len > 0 || s->overflow > 0;
  uint32_t top_entry = s->len > 0 ? s->cols[s->len - 1] : 0;
  uint32_t top = top_entry & COL_MASK;
  bool top_calc = (top_entry & CALC_FLAG) != 0 && s->overflow == 0;
  bool v_calc = valid[CALC_START];
  bool v_start = valid[LAYOUT_START] || v_calc;
  bool v_sep = valid[LAYOUT_SEP];
  bool v_end = valid[LAYOUT_END];

  /* ---- A. end of file ---- */
  if (at_eof) {
    if (v_end) {
      pop(s);
      lx->result_symbol = LAYOUT_END;
      return true;
    }
    return false;
  }

  /* ---- B. dedent ---- */
  /* In the first step of a `calc`, a line that starts with an operator
   * continues the step even when it is less indented (`calc a\n  ≤ b := p`). */
  bool calc_continuation = top_calc && is_sym(lx->lookahead);
  if (has && nl && indent < top && v_end && !calc_continuation) {
    pop(s);
    lx->result_symbol = LAYOUT_END;
    return true;
  }

  /* Column of the next token for a block opened on the same line. */
  uint32_t same_line_col = 0;
  if (v_start && !nl) same_line_col = lx->get_column(lx);

  /* ---- classify the next token (advancing is fine: every token emitted
   * after this point is zero-width, except `,` `|` and block comments
   * whose first characters we stop on) ---- */
  enum Kind k = K_OTHER;
  bool cmd_start = false, closing_word = false, continuation = false;
  bool then_else = false, bar_spaced_after = false;
  int word_tok = -1; /* THEN or ELSE when the next word is one of them */
  int32_t c = lx->lookahead;

  if (is_closer(c)) {
    k = K_CLOSER;
  } else if (c == ',') {
    k = K_COMMA;
  } else if (c == '|') {
    adv(lx);
    if (!is_sym(lx->lookahead)) {
      k = K_BAR;
      bar_spaced_after = lx->eof(lx) || is_space(lx->lookahead);
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
    if (lx->lookahead == '[') cmd_start = true;
  } else if (c == '#') {
    adv(lx);
    if (is_ascii_word_start(lx->lookahead)) cmd_start = true;
  } else if (c == '<') {
    adv(lx);
    if (lx->lookahead == ';') {
      adv(lx);
      if (lx->lookahead == '>') continuation = true;
    }
  } else if (is_ascii_word_start(c)) {
    char w[24];
    unsigned n = 0;
    while (is_ascii_word(lx->lookahead)) {
      if (n < sizeof(w) - 1) w[n] = (char)lx->lookahead;
      n++;
      adv(lx);
    }
    if (n < sizeof(w)) {
      w[n] = 0;
      if (word_in(w, COMMAND_WORDS)) cmd_start = true;
      if (word_in(w, CLOSING_WORDS)) closing_word = true;
      if (strcmp(w, "then") == 0) word_tok = THEN;
      if (strcmp(w, "else") == 0) word_tok = ELSE;
      then_else = word_tok >= 0;
    }
  }

  bool is_comment = k == K_LINE_COMMENT || k == K_BLOCK_COMMENT;

  /* ---- C. open a block ---- */
  if (v_start && !is_comment) {
    bool blocked = nl && indent == 0 && cmd_start;
    if (!blocked) {
      uint32_t col = nl ? indent : same_line_col;
      bool other = v_sep || v_end;
      if (!other || !has || col > top) {
        if (col > COL_MASK) col = COL_MASK;
        push(s, v_calc ? (col | CALC_FLAG) : col);
        lx->result_symbol = v_calc ? CALC_START : LAYOUT_START;
        return true;
      }
    }
  }

  /* ---- D. decisions at the start of a line ---- */
  if (has && nl) {
    if (indent == 0 && (cmd_start || is_comment) && v_end) {
      pop(s);
      lx->result_symbol = LAYOUT_END;
      return true;
    }
    if (indent <= top && closing_word && v_end) {
      pop(s);
      lx->result_symbol = LAYOUT_END;
      return true;
    }
    if (indent == top && v_sep && !continuation && !then_else && k != K_BAR && !is_comment) {
      lx->result_symbol = LAYOUT_SEP;
      return true;
    }
  }

  /* ---- E. tokens that close the innermost block when it cannot use them ---- */
  if (has && v_end) {
    bool close = false;
    if (k == K_CLOSER) close = true;
    else if (k == K_COMMA && !valid[COMMA]) close = true;
    else if (k == K_BAR && !valid[BAR] && ws && bar_spaced_after) close = true;
    else if (then_else && !valid[word_tok]) close = true;
    if (close) {
      pop(s);
      lx->result_symbol = LAYOUT_END;
      return true;
    }
  }

  /* ---- F. consuming tokens ---- */
  if (then_else && valid[word_tok]) {
    lx->mark_end(lx);
    lx->result_symbol = word_tok;
    return true;
  }
  if (k == K_COMMA && valid[COMMA]) {
    adv(lx);
    lx->mark_end(lx);
    lx->result_symbol = COMMA;
    return true;
  }
  if (k == K_BAR && valid[BAR] && ((ws && bar_spaced_after) || nl)) {
    lx->mark_end(lx);
    lx->result_symbol = BAR;
    return true;
  }
  if (k == K_BLOCK_COMMENT) {
    return finish_block_comment(lx, valid);
  }
  return false;
}

void *tree_sitter_lean_external_scanner_create(void) {
  Scanner *s = (Scanner *)calloc(1, sizeof(Scanner));
  return s;
}

void tree_sitter_lean_external_scanner_destroy(void *payload) { free(payload); }

unsigned tree_sitter_lean_external_scanner_serialize(void *payload, char *buffer) {
  Scanner *s = (Scanner *)payload;
  unsigned size = 0;
  memcpy(buffer + size, &s->overflow, sizeof(uint16_t));
  size += sizeof(uint16_t);
  unsigned n = s->len;
  if (n * sizeof(uint16_t) + size > TREE_SITTER_SERIALIZATION_BUFFER_SIZE) {
    n = (TREE_SITTER_SERIALIZATION_BUFFER_SIZE - size) / sizeof(uint16_t);
  }
  memcpy(buffer + size, s->cols, n * sizeof(uint16_t));
  size += n * sizeof(uint16_t);
  return size;
}

void tree_sitter_lean_external_scanner_deserialize(void *payload, const char *buffer,
                                                   unsigned length) {
  Scanner *s = (Scanner *)payload;
  s->len = 0;
  s->overflow = 0;
  if (length >= sizeof(uint16_t)) {
    memcpy(&s->overflow, buffer, sizeof(uint16_t));
    unsigned n = (length - sizeof(uint16_t)) / sizeof(uint16_t);
    if (n > MAX_DEPTH) n = MAX_DEPTH;
    memcpy(s->cols, buffer + sizeof(uint16_t), n * sizeof(uint16_t));
    s->len = (uint16_t)n;
  }
}

bool tree_sitter_lean_external_scanner_scan(void *payload, TSLexer *lexer,
                                            const bool *valid_symbols) {
  return scan((Scanner *)payload, lexer, valid_symbols);
}
