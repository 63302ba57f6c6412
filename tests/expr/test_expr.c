// Deck expressions (base/expr.c): values against libm and hand-computed numbers, plain
// numbers that keep strtod's bits, error messages with their columns, and the threaded
// evaluation against the serial one, bit for bit.
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "testlib.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_E
#define M_E 2.7182818284590452354
#endif

// About two units in the last place: muparser's bytecode may regroup constant factors.
static const double kUlp2 = 4.5e-16;

static double Eval(const char *text, int dim, const double *x, double t) {
  BlastExpr e = NULL;
  int ierr = BlastExprCompile(text, "test.ini:1", "[test] value", &e);
  TEST_ASSERT(!ierr, "'%s' does not compile: %s", text, BlastErrorMessage());
  if (ierr) {
    BlastErrorClear();
    return NAN;
  }
  double v = BlastExprEval(e, dim, x, t);
  BlastExprDestroy(&e);
  TEST_ASSERT(e == NULL, "Destroy leaves the handle NULL");
  return v;
}

static void Values(void) {
  const double p2[2] = {3.0, 4.0};
  TEST_ASSERT(Eval("1+2*3", 2, p2, 0) == 7.0, "1+2*3");
  TEST_ASSERT(Eval("x^2+y^2", 2, p2, 0) == 25.0, "x^2+y^2 at (3,4)");
  TEST_ASSERT(Eval("r", 2, p2, 0) == 5.0, "r at (3,4)");
  TEST_ASSERT(Eval("-x/max(r,1e-12)", 2, p2, 0) == -0.6, "-x/max(r,1e-12) at (3,4)");
  TEST_ASSERT(Eval("z", 2, p2, 0) == 0.0, "z in 2D");
  TEST_ASSERT(Eval("x > 2.5 ? 1 : 2", 2, p2, 0) == 1.0, "ternary");
  TEST_ASSERT(Eval("2*t", 2, p2, 1.5) == 3.0, "2*t at t=1.5");
  TEST_ASSERT(Eval("(x<=3)+(y>=5)+(x!=3)+(y==4)+max(x,y,1)", 2, p2, 0) == 6.0, "comparisons, max");
  TEST_ASSERT(Eval("pi", 1, p2, 0) == M_PI, "pi is M_PI to the last bit");
  TEST_ASSERT(Eval("e", 1, p2, 0) == M_E, "e is M_E to the last bit");
  TEST_ASSERT(Eval("1e5+e", 1, p2, 0) == 1e5 + M_E, "e next to an exponent");
  const double p3[3] = {0.3, -0.7, 0.45};
  TEST_CLOSE(Eval("sin(pi*x)", 3, p3, 0), sin(M_PI * 0.3), kUlp2);
  TEST_CLOSE(Eval("3*pi/8*(cos(3*pi*x)*cos(pi*y)-cos(pi*x)*cos(3*pi*y))", 3, p3, 0),
             3 * M_PI / 8 *
                 (cos(3 * M_PI * 0.3) * cos(M_PI * -0.7) - cos(M_PI * 0.3) * cos(3 * M_PI * -0.7)),
             kUlp2);
  TEST_CLOSE(Eval("exp(-z)*sqrt(abs(y))+atan2(y,x)", 3, p3, 0),
             exp(-0.45) * sqrt(0.7) + atan2(-0.7, 0.3), kUlp2);
  TEST_CLOSE(Eval("r", 3, p3, 0), sqrt(0.3 * 0.3 + 0.7 * 0.7 + 0.45 * 0.45), kUlp2);
  TEST_CLOSE(Eval("sin(pi*x)*cos(pi*y)*exp(-t)", 2, p3, 0.25),
             sin(M_PI * 0.3) * cos(M_PI * -0.7) * exp(-0.25), kUlp2);

  BlastExpr e = NULL;
  TEST_CALL(BlastExprCompile("cos(t)*x", "a.ini:3", "[exact] density", &e));
  if (e) {
    TEST_ASSERT(BlastExprUsesTime(e) == 1, "cos(t)*x uses t");
    TEST_ASSERT(!BlastExprIsConstant(e, NULL), "cos(t)*x is not a plain number");
    TEST_ASSERT(strcmp(BlastExprText(e), "cos(t)*x") == 0, "text");
    TEST_ASSERT(strcmp(BlastExprWhere(e), "a.ini:3") == 0, "where");
    TEST_ASSERT(strcmp(BlastExprWhat(e), "[exact] density") == 0, "what");
    BlastExprDestroy(&e);
  }
  TEST_CALL(BlastExprCompile("x*y", "a.ini:3", "[exact] density", &e));
  if (e) TEST_ASSERT(BlastExprUsesTime(e) == 0, "x*y does not use t");
  BlastExprDestroy(&e);
  BlastExprDestroy(&e);  // NULL handle: nothing
}

// A plain number gives strtod's double, bit for bit; muparser is not asked.
static void PlainNumbers(void) {
  const char *texts[] = {"0.1", "  2.5e-3 ", "-0.5", "+3", "1.4", "6.0e8", "1e-320", "7"};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    BlastExpr e = NULL;
    TEST_CALL(BlastExprCompile(texts[i], "d.ini:2", "[material.air] gamma", &e));
    if (!e) continue;
    double v = -1.0, want = strtod(texts[i], NULL);
    TEST_ASSERT(BlastExprIsConstant(e, &v) == 1, "'%s' is a plain number", texts[i]);
    TEST_ASSERT(memcmp(&v, &want, sizeof v) == 0, "'%s': %.17g, strtod %.17g", texts[i], v, want);
    double x[3] = {1, 2, 3}, w = BlastExprEval(e, 3, x, 7.0);
    TEST_ASSERT(memcmp(&w, &want, sizeof w) == 0, "'%s' evaluates to %.17g", texts[i], w);
    TEST_ASSERT(BlastExprUsesTime(e) == 0, "'%s' does not use t", texts[i]);
    BlastExprDestroy(&e);
  }
  // 0.1 written as an expression goes through muparser: the same double here too.
  double x[1] = {0.0};
  TEST_ASSERT(Eval("0.1+0*x", 1, x, 0) == 0.1, "0.1 inside an expression");
}

// The text is an error with this column and a message containing `needle`.
static void ExpectError(const char *text, int column, const char *needle) {
  BlastExpr e = (BlastExpr)&e;  // not NULL: Compile must set it
  int ierr = BlastExprCompile(text, "deck.ini:12", "[region.pool] density", &e);
  TEST_ASSERT(ierr == BLAST_ERR_INPUT, "'%s': error %d, expected BLAST_ERR_INPUT", text, ierr);
  TEST_ASSERT(e == NULL, "'%s': the handle is NULL after an error", text);
  char head[128], tail[128];
  snprintf(head, sizeof head, "deck.ini:12: [region.pool] density: column %d: ", column);
  snprintf(tail, sizeof tail, " in '%s'", text);
  const char *m = BlastErrorMessage();
  size_t lm = strlen(m), lt = strlen(tail);
  TEST_ASSERT(strncmp(m, head, strlen(head)) == 0, "'%s': message '%s' does not begin with '%s'",
              text, m, head);
  TEST_ASSERT(lm >= lt && strcmp(m + lm - lt, tail) == 0,
              "'%s': message '%s' does not end with '%s'", text, m, tail);
  TEST_ASSERT(strstr(m, needle) != NULL, "'%s': message '%s' lacks '%s'", text, m, needle);
  TEST_ASSERT(strstr(m, "position") == NULL, "'%s': muparser's 0-based position in '%s'", text, m);
  BlastErrorClear();
}

static void Errors(void) {
  ExpectError("w*2", 1, "Unexpected token \"w\"");
  ExpectError("2*foo(x)", 3, "\"foo\"");
  ExpectError("(x+1", 5, "Missing parenthesis");
  ExpectError("sin(x))", 7, "parenthesis");
  ExpectError("x+", 3, "Unexpected end of expression");
  ExpectError("x*", 3, "Unexpected end of expression");
  ExpectError("x y", 3, "Unexpected variable \"y\"");
  ExpectError("sin()", 5, "Too few parameters for function \"sin\"");
  ExpectError("x=3", 2, "assignment");
  ExpectError("y+=1", 3, "Unexpected operator \"=\"");
  ExpectError("x,y", 2, "one value");
  ExpectError("max(x,y),2", 9, "one value");
  ExpectError("_pi*x", 1, "\"_pi\"");  // muparser's 13-digit _pi is not offered
  ExpectError("", 1, "empty expression");
  ExpectError("   ", 1, "empty expression");
  ExpectError("1e999", 1, "not a finite number");
  ExpectError("  -1e999", 3, "not a finite number");
  ExpectError("nan", 1, "not a finite number");
  ExpectError("inf", 1, "not a finite number");
  ExpectError("2*1e999", 3, "too large");
  ExpectError("x+.5e400", 3, "too large");
  // One message in full.
  BlastExpr e = NULL;
  TEST_ASSERT(
      BlastExprCompile("w*2", "deck.ini:12", "[region.pool] density", &e) == BLAST_ERR_INPUT,
      "w*2");
  TEST_ASSERT(
      strcmp(BlastErrorMessage(),
             "deck.ini:12: [region.pool] density: column 1: Unexpected token \"w\" found in "
             "'w*2'") == 0,
      "message '%s'", BlastErrorMessage());
  BlastErrorClear();
}

// EvalMany on 2 threads gives Eval's bits at every point (and grows its parsers when the
// thread count grows).
static void Many(void) {
  enum { n = 2001, dim = 2 };
  double *x = malloc(sizeof(double) * n * dim), *a = malloc(sizeof(double) * n),
         *b = malloc(sizeof(double) * n);
  TEST_ASSERT(x && a && b, "malloc");
  if (!x || !a || !b) return;
  for (int i = 0; i < n; i++) {
    x[i * dim] = -1.0 + 2.0 * i / (n - 1);
    x[i * dim + 1] = sin(0.37 * i);
  }
  BlastExpr e = NULL;
  TEST_CALL(BlastExprCompile("3*pi/8*(cos(3*pi*x)*cos(pi*y)-cos(pi*x)*cos(3*pi*y))+r*t", "m.ini:4",
                             "[source.heating] power", &e));
  if (e) {
    omp_set_num_threads(1);
    TEST_CALL(BlastExprEvalMany(e, dim, n, x, 0.5, b));
    omp_set_num_threads(2);
    TEST_CALL(BlastExprEvalMany(e, dim, n, x, 0.5, a));
    for (int i = 0; i < n; i++) {
      double s = BlastExprEval(e, dim, &x[i * dim], 0.5);
      TEST_ASSERT(memcmp(&s, &a[i], sizeof s) == 0 && memcmp(&s, &b[i], sizeof s) == 0,
                  "point %d: Eval %.17g, EvalMany %.17g (2 threads) %.17g (1 thread)", i, s, a[i],
                  b[i]);
      if (memcmp(&s, &a[i], sizeof s) != 0) break;
    }
    TEST_CALL(BlastExprEvalMany(e, dim, 1, x, 0.5, a));  // fewer points than threads
    TEST_ASSERT(a[0] == BlastExprEval(e, dim, x, 0.5), "one point");
    BlastExprDestroy(&e);
  }
  TEST_CALL(BlastExprCompile("1.5", "m.ini:5", "[region.a] density", &e));
  if (e) {
    TEST_CALL(BlastExprEvalMany(e, dim, n, x, 0.0, a));
    int all = 1;
    for (int i = 0; i < n; i++) all &= a[i] == 1.5;
    TEST_ASSERT(all, "a plain number everywhere");
    BlastExprDestroy(&e);
  }
  free(x);
  free(a);
  free(b);
}

int main(void) {
  Values();
  PlainNumbers();
  Errors();
  Many();
  return BlastTestFinish("test_expr");
}
