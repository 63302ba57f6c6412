// The deck's one use of base/expr.h: an expression compiled once when the deck is resolved,
// so that a syntax error is an input error naming the deck line and the column. Kept apart
// from config.h (see deck-impl.h).
#include "blast.h"
#include "deck-expr.h"
#include "expr.h"

int DeckExprCheck(const char *text, const char *where, const char *what) {
  BlastExpr x = NULL;
  const int ierr = BlastExprCompile(text, where, what, &x);
  BlastExprDestroy(&x);
  BlastCall(ierr);
  return 0;
}
