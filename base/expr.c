// Deck expressions compiled by muparser (see expr.h).
//
// muparser's C API records an error in the handle instead of throwing: every call is
// followed by a mupError() check. A handle is not safe to use from two threads, so
// BlastExprEvalMany keeps one handle per OpenMP thread, each compiled from the same text
// (the same bytecode, so the same bits as BlastExprEval).
#include "expr.h"

#include <math.h>
#include <muParserDLL.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"

// pi and e to the double nearest (C11 does not define M_PI and M_E).
static const double kPi = 3.14159265358979323846264338327950288;
static const double kE = 2.71828182845904523536028747135266250;

// The variables of one handle: x, y, z, r, t. Padded to a cache line per handle, so
// threads never write the same line.
enum { kVarX, kVarY, kVarZ, kVarR, kVarT, kVarStride = 8 };
static const char *const kVarNames[] = {"x", "y", "z", "r", "t"};

struct BlastExpr_private {
  char *text, *where, *what;
  int is_constant;
  double value;  // the plain number, when is_constant
  int uses_time;
  int nhandles;
  muParserHandle_t *handles;  // handles[i] reads vars[i * kVarStride ..]
  double *vars;
};

// BLAST_ERR_INPUT "<where>: <what>: column C: <message> in '<text>'". `pos` is 0-based in
// `text`; the column printed counts from 1 and is at most one past the text's end.
static int ExprInputError(const char *where, const char *what, const char *text, long pos,
                          const char *message) {
  long len = (long)strlen(text);
  if (pos < 0) pos = 0;
  if (pos > len) pos = len;
  BlastError(BLAST_ERR_INPUT, "%s: %s: column %ld: %s in '%s'", where, what, pos + 1, message,
             text);
}

// muparser's message without its own " at position N" (0-based; the column replaces it).
static void MupMessage(muParserHandle_t h, char *msg, size_t len) {
  const char *m = mupGetErrorMsg(h);
  snprintf(msg, len, "%s", m ? m : "unknown muparser error");
  char *at = strstr(msg, " at expression position ");
  if (!at) at = strstr(msg, " at position ");
  if (at) *at = '\0';
  size_t n = strlen(msg);
  while (n > 0 && (msg[n - 1] == '.' || msg[n - 1] == ' ')) msg[--n] = '\0';
}

// A handle for e->text reading the variables at `vars`, compiled and evaluated once (at
// all variables 0) so that every syntax error shows here. Errors in the text are
// BLAST_ERR_INPUT; a failure of muparser itself BLAST_ERR_INTERNAL.
static int NewHandle(BlastExpr e, double *vars, muParserHandle_t *out) {
  *out = NULL;
  muParserHandle_t h = mupCreate(muBASETYPE_FLOAT);
  BlastCheck(h, BLAST_ERR_MEM, "muparser: cannot create a parser for %s", e->what);
  char msg[512];
  // muparser's own constants (_pi with 13 digits, _e) are replaced by pi and e to the
  // double's precision.
  mupClearConst(h);
  mupDefineConst(h, "pi", kPi);
  mupDefineConst(h, "e", kE);
  for (int v = 0; v <= kVarT && !mupError(h); v++) mupDefineVar(h, kVarNames[v], &vars[v]);
  if (mupError(h)) {
    MupMessage(h, msg, sizeof msg);
    mupRelease(h);
    BlastError(BLAST_ERR_INTERNAL, "muparser: cannot define the variables of %s: %s", e->what, msg);
  }
  for (int v = 0; v <= kVarT; v++) vars[v] = 0.0;
  mupSetExpr(h, e->text);
  if (!mupError(h)) (void)mupEval(h);
  if (mupError(h)) {
    long pos = mupGetErrorPos(h);
    MupMessage(h, msg, sizeof msg);
    mupRelease(h);
    return ExprInputError(e->where, e->what, e->text, pos, msg);
  }
  *out = h;
  return BLAST_SUCCESS;
}

// Number literals that overflow a double ("1e999"): muparser calls them an unexpected
// token; this says what is wrong. A literal starts with a digit, or a '.' and a digit, that
// does not continue a name or another literal.
static int CheckLiterals(BlastExpr e) {
  const char *s = e->text;
  for (size_t i = 0; s[i]; i++) {
    int digit = s[i] >= '0' && s[i] <= '9';
    int dot_digit = s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9';
    if (!digit && !dot_digit) continue;
    if (i > 0) {
      char p = s[i - 1];
      if ((p >= '0' && p <= '9') || (p >= 'a' && p <= 'z') || (p >= 'A' && p <= 'Z') || p == '_' ||
          p == '.')
        continue;
    }
    char *end;
    double v = strtod(s + i, &end);
    if (end > s + i && !isfinite(v))
      return ExprInputError(e->where, e->what, e->text, (long)i,
                            "the number is too large for a double");
  }
  return BLAST_SUCCESS;
}

// What muparser accepts but a deck value must not be: an assignment (`x=3` sets x and
// gives 3) and several comma-separated results (`x,y`; muparser gives the last).
static int CheckOneValue(BlastExpr e) {
  const char *s = e->text;
  int depth = 0;
  for (size_t i = 0; s[i]; i++) {
    char c = s[i];
    if (c == '(') depth++;
    if (c == ')') depth--;
    if (c == ',' && depth <= 0)
      return ExprInputError(e->where, e->what, e->text, (long)i,
                            "',' outside a function's arguments (one value is expected)");
    if (c == '=') {
      char p = i > 0 ? s[i - 1] : ' ', n = s[i + 1];
      if (n == '=') {
        i++;  // ==
        continue;
      }
      if (p != '<' && p != '>' && p != '!' && p != '=')
        return ExprInputError(e->where, e->what, e->text, (long)i,
                              "'=' is an assignment (a comparison is '==')");
    }
  }
  return BLAST_SUCCESS;
}

// 1 if the text is one number for strtod (leading and trailing blanks allowed); *value.
static int PlainNumber(const char *text, double *value) {
  char *end;
  double v = strtod(text, &end);
  if (end == text) return 0;
  while (*end == ' ' || *end == '\t') end++;
  if (*end) return 0;
  *value = v;
  return 1;
}

// Grow the handles to n (each compiled from the text).
static int EnsureHandles(BlastExpr e, int n) {
  if (n <= e->nhandles) return BLAST_SUCCESS;
  double *vars = NULL;
  BlastCall(BlastCalloc((size_t)n * kVarStride, &vars));
  // The variables move: the handles made so far are remade on the new storage.
  for (int i = 0; i < e->nhandles; i++) mupRelease(e->handles[i]);
  BlastFree(&e->handles);
  BlastFree(&e->vars);
  e->nhandles = 0;
  e->vars = vars;
  BlastCall(BlastCalloc(n, &e->handles));
  for (int i = 0; i < n; i++) {
    BlastCall(NewHandle(e, &e->vars[(size_t)i * kVarStride], &e->handles[i]));
    e->nhandles = i + 1;
  }
  return BLAST_SUCCESS;
}

static int CompileInto(BlastExpr e) {
  const char *s = e->text;
  while (*s == ' ' || *s == '\t') s++;
  if (!*s) return ExprInputError(e->where, e->what, e->text, 0, "empty expression");
  if (PlainNumber(e->text, &e->value)) {
    if (!isfinite(e->value))
      return ExprInputError(e->where, e->what, e->text, (long)(s - e->text), "not a finite number");
    e->is_constant = 1;
    return BLAST_SUCCESS;
  }
  BlastCall(CheckLiterals(e));
  BlastCall(EnsureHandles(e, 1));
  BlastCall(CheckOneValue(e));
  muParserHandle_t h = e->handles[0];
  int nresults = 0;
  (void)mupEvalMulti(h, &nresults);
  BlastCheck(!mupError(h), BLAST_ERR_INTERNAL, "muparser: cannot evaluate %s", e->what);
  if (nresults != 1) return ExprInputError(e->where, e->what, e->text, 0, "one value is expected");
  int nused = mupGetExprVarNum(h);
  BlastCheck(!mupError(h), BLAST_ERR_INTERNAL, "muparser: cannot list the variables of %s",
             e->what);
  for (int i = 0; i < nused; i++) {
    const char *name = NULL;
    double *ptr = NULL;
    mupGetExprVar(h, (unsigned)i, &name, &ptr);
    BlastCheck(!mupError(h), BLAST_ERR_INTERNAL, "muparser: cannot list the variables of %s",
               e->what);
    if (name && strcmp(name, "t") == 0) e->uses_time = 1;
  }
  return BLAST_SUCCESS;
}

int BlastExprCompile(const char *text, const char *where, const char *what, BlastExpr *out) {
  BlastCheck(text && out, BLAST_ERR_ARG, "BlastExprCompile: NULL text or handle");
  *out = NULL;
  BlastExpr e = NULL;
  BlastCall(BlastCalloc(1, &e));
  int ierr = BlastStrdup(text, &e->text);
  if (!ierr) ierr = BlastStrdup(where ? where : "expression", &e->where);
  if (!ierr) ierr = BlastStrdup(what ? what : "value", &e->what);
  if (!ierr) ierr = CompileInto(e);
  if (ierr) {
    BlastExprDestroy(&e);
    return BlastErrorTrace(__FILE__, __LINE__, __func__, ierr);
  }
  *out = e;
  return BLAST_SUCCESS;
}

void BlastExprDestroy(BlastExpr *e) {
  if (!e || !*e) return;
  for (int i = 0; i < (*e)->nhandles; i++) mupRelease((*e)->handles[i]);
  BlastFree(&(*e)->handles);
  BlastFree(&(*e)->vars);
  BlastFree(&(*e)->text);
  BlastFree(&(*e)->where);
  BlastFree(&(*e)->what);
  BlastFree(e);
}

int BlastExprIsConstant(BlastExpr e, double *value) {
  if (!e->is_constant) return 0;
  if (value) *value = e->value;
  return 1;
}

int BlastExprUsesTime(BlastExpr e) {
  return e->uses_time;
}

const char *BlastExprText(BlastExpr e) {
  return e->text;
}
const char *BlastExprWhere(BlastExpr e) {
  return e->where;
}
const char *BlastExprWhat(BlastExpr e) {
  return e->what;
}

// Evaluate with handle i at one point; NaN if muparser reports an error.
static double EvalWith(BlastExpr e, int i, int dim, const double *x, double t) {
  double *v = &e->vars[(size_t)i * kVarStride];
  double c[3] = {0.0, 0.0, 0.0};
  for (int d = 0; d < dim && d < 3; d++) c[d] = x[d];
  v[kVarX] = c[0];
  v[kVarY] = c[1];
  v[kVarZ] = c[2];
  v[kVarR] = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
  v[kVarT] = t;
  double r = mupEval(e->handles[i]);
  if (mupError(e->handles[i])) {
    mupErrorReset(e->handles[i]);
    return NAN;
  }
  return r;
}

double BlastExprEval(BlastExpr e, int dim, const double *x, double t) {
  if (e->is_constant) return e->value;
  return EvalWith(e, 0, dim, x, t);
}

int BlastExprEvalMany(BlastExpr e, int dim, size_t n, const double *x, double t, double *out) {
  BlastCheck(e && (n == 0 || (x && out)) && dim >= 1 && dim <= 3, BLAST_ERR_ARG,
             "BlastExprEvalMany: bad arguments");
  if (e->is_constant) {
    for (size_t i = 0; i < n; i++) out[i] = e->value;
    return BLAST_SUCCESS;
  }
  int nt = omp_get_max_threads();
  if ((size_t)nt > n) nt = n > 0 ? (int)n : 1;
  BlastCall(EnsureHandles(e, nt));
  const long nn = (long)n;
#pragma omp parallel num_threads(nt)
  {
    const int tid = omp_get_thread_num();
#pragma omp for schedule(static)
    for (long i = 0; i < nn; i++) out[i] = EvalWith(e, tid, dim, &x[(size_t)i * dim], t);
  }
  return BLAST_SUCCESS;
}
