// deck_expr.c: the deck's use of base/expr.h, in a file of its own (its declarations are
// not needed next to config.h's). Not part of the io/ API.
#ifndef BLAST_DECK_EXPR_H
#define BLAST_DECK_EXPR_H

/// Compile `text` once and free it: BLAST_ERR_INPUT with "<where>: <what>: column C: ..."
/// when it does not parse (base/expr.h, BlastExprCompile).
int DeckExprCheck(const char *text, const char *where, const char *what);

#endif  // BLAST_DECK_EXPR_H
