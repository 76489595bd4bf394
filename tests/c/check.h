/* A minimal assertion helper for the C unit tests: count failures, report where. */
#ifndef PARIO_TEST_CHECK_H
#define PARIO_TEST_CHECK_H
#include <stdio.h>
static int check_failures = 0, check_count = 0;
#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    check_count++;                                                        \
    if (!(cond)) {                                                        \
      check_failures++;                                                   \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                       \
      fprintf(stderr, "\n");                                              \
    }                                                                     \
  } while (0)
#define CHECK_DONE()                                                      \
  (printf("%d checks, %d failed\n", check_count, check_failures), check_failures ? 1 : 0)
#endif
