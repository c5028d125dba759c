; Highlights for the math-forge Lean 4 grammar.

[
  (line_comment)
  (block_comment)
] @comment

[
  (doc_comment)
  (module_doc)
] @comment.documentation

(string) @string
(raw_string) @string
(interpolated_string) @string
(string_content) @string
(char) @character
(number) @number
(name_literal) @string.special.symbol
(syntax_quotation) @string.special

(sorry) @keyword.exception
(admit) @keyword.exception

(declaration_kind) @keyword
(modifier) @keyword.modifier
(syntax_keyword) @keyword
(hash_keyword) @keyword.directive
(binder_symbol) @operator
(operator) @operator

(declaration name: (identifier) @function)
(namespace name: (identifier) @module)
(section name: (identifier) @module)
(end name: (identifier) @module)
(import module: (identifier) @module)
(constructor name: (identifier) @constructor)
(attribute) @attribute

(tactic head: (identifier) @function.builtin)

[
  "by" "fun" "λ" "have" "haveI" "let" "letI" "suffices" "show" "from"
  "if" "then" "else" "match" "with" "do" "calc" "where" "extends" "deriving"
  "termination_by" "decreasing_by" "in"
  "namespace" "section" "end" "open" "export" "variable" "universe"
  "set_option" "import" "module" "attribute" "mutual" "omit" "include"
  "#exit" "priority"
] @keyword

(prelude) @keyword

[
  ":=" ":" "=>" "↦" "<;>" "·" "." "::" "|"
] @punctuation.delimiter

["," ";"] @punctuation.delimiter

["(" ")" "[" "]" "{" "}" "⟨" "⟩" "⦃" "⦄" "‹" "›" "⟪" "⟫" "@["] @punctuation.bracket

(identifier) @variable
