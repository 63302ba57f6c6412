/// @file testlib.h
/// @brief Minimal assertion helpers for the numbered test programs. Each failed check
/// prints file:line and the values; main returns the failure count via BlastTestFinish().
#ifndef BLAST_TESTLIB_H
#define BLAST_TESTLIB_H

#include <math.h>
#include <stdio.h>

#include "blast.h"

extern int blast_test_failures, blast_test_checks;

#define TEST_ASSERT(cond, ...)                                         \
  do {                                                                 \
    blast_test_checks++;                                               \
    if (!(cond)) {                                                     \
      blast_test_failures++;                                           \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
      fprintf(stderr, __VA_ARGS__);                                    \
      fprintf(stderr, "\n");                                           \
    }                                                                  \
  } while (0)

/// |a - b| <= tol * max(|b|, floor), with floor = 1 when b is tiny.
#define TEST_CLOSE(a, b, tol)                                                              \
  do {                                                                                     \
    double ta_ = (a), tb_ = (b), tt_ = (tol);                                              \
    double den_ = fabs(tb_) > 1e-300 ? fabs(tb_) : 1.0;                                     \
    TEST_ASSERT(fabs(ta_ - tb_) <= tt_ * den_, "%s = %.17g, expected %.17g (rel diff %.3e, tol %.1e)", \
                #a, ta_, tb_, fabs(ta_ - tb_) / den_, tt_);                                 \
  } while (0)

/// Fail the test if a blast_gpu call returns an error (prints the recorded error).
#define TEST_CALL(...)                           \
  do {                                           \
    int te_ = (__VA_ARGS__);                     \
    blast_test_checks++;                         \
    if (te_) {                                   \
      blast_test_failures++;                     \
      fprintf(stderr, "FAIL %s:%d: %s returned %d\n", __FILE__, __LINE__, #__VA_ARGS__, te_); \
      BlastErrorPrint();                         \
      BlastErrorClear();                         \
    }                                            \
  } while (0)

/// Print a summary and return the exit status (0 iff no failure).
int BlastTestFinish(const char *name);

/// 1 if every rank of MPI_COMM_WORLD holds the same message as rank 0 (collective; the
/// first 2047 characters are compared).
int BlastTestSameMessageEverywhere(const char *msg);

#endif  // BLAST_TESTLIB_H
