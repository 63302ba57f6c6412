/// @file expr.h
/// @brief Expressions of the deck (region data, sources, boundary velocities, the exact
/// solution): text such as `-x/max(r,1e-12)` or `3*pi/8*cos(3*pi*x)` compiled once by
/// muparser and evaluated at points.
///
/// Variables: x, y, z (coordinates; those past the mesh's dimension are 0), r = |x|, and
/// t (time; 0 for initial data). Constants: pi, e. Functions: muparser's (sin, cos, tan,
/// asin, acos, atan, atan2, sinh, cosh, tanh, exp, log, log10, sqrt, abs, sign, rint,
/// min, max, sum, avg, ^, ?:, comparisons and logical operators).
///
/// A plain number (the whole text parses with strtod) is not handed to muparser: it
/// evaluates to exactly the double strtod gives, so decks that write numbers reproduce
/// the built-in problems' bits.
///
/// A compiled expression is not safe to evaluate from two threads at once: use
/// BlastExprEvalMany (which threads over the points itself) or one copy per thread.
#ifndef BLAST_EXPR_H
#define BLAST_EXPR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BlastExpr_private *BlastExpr;

/// Compile `text`. `where` ("deck.ini:12" or "command line argument 3 ('...')") and `what`
/// ("[region.pool] density") name it in messages. A syntax error, an unknown variable or
/// function, or an empty text is BLAST_ERR_INPUT with the message
/// "<where>: [section] key: column C: <what is wrong> in '<text>'" (C counts from 1 in the
/// expression's text).
int BlastExprCompile(const char *text, const char *where, const char *what, BlastExpr *e);
/// Free an expression (NULL allowed) and set the handle to NULL.
void BlastExprDestroy(BlastExpr *e);
/// 1 if the expression is a plain number (then *value is it), else 0.
int BlastExprIsConstant(BlastExpr e, double *value);
/// 1 if the expression uses the variable t.
int BlastExprUsesTime(BlastExpr e);
/// The value at point x[0..dim) (missing coordinates 0) and time t.
double BlastExprEval(BlastExpr e, int dim, const double *x, double t);
/// Values at n points: point i is x[i*dim .. i*dim+dim); out[i]. OpenMP threads over the
/// points with one parser copy per thread; the values are those of BlastExprEval.
int BlastExprEvalMany(BlastExpr e, int dim, size_t n, const double *x, double t, double *out);
/// The text and the `where`/`what` of the expression (for messages about its values, such
/// as "density is -1 at (0.5, 0.25)").
const char *BlastExprGetText(BlastExpr e);
const char *BlastExprWhere(BlastExpr e);
const char *BlastExprWhat(BlastExpr e);

#ifdef __cplusplus
}
#endif

#endif  // BLAST_EXPR_H
