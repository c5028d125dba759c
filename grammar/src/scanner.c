#include "tree_sitter/parser.h"
void *tree_sitter_lean_external_scanner_create(void) { return NULL; }
void tree_sitter_lean_external_scanner_destroy(void *p) {}
unsigned tree_sitter_lean_external_scanner_serialize(void *p, char *b) { return 0; }
void tree_sitter_lean_external_scanner_deserialize(void *p, const char *b, unsigned n) {}
bool tree_sitter_lean_external_scanner_scan(void *p, TSLexer *l, const bool *v) { return false; }
