/*
 * tokens.h -- reads the chemistry data files (the .mech and .ref files of
 * samples/chem) as whitespace-separated tokens, '#' starting a comment that
 * runs to the end of the line.  Errors are returned with a message naming the
 * file and line; nothing is printed.
 */
#ifndef CHEM_TOKENS_H
#define CHEM_TOKENS_H

#include <stddef.h>
#include <stdio.h>

#define CHEM_TOKEN_MAX 128 /* longest token, terminating zero included */

typedef struct chem_tokens {
    FILE *f;
    const char *path;
    long line;                 /* line of the last token read, from 1 */
    char tok[CHEM_TOKEN_MAX];  /* the last token read */
    char msg[256];             /* the first error, "path:line: what" */
} chem_tokens;

/* 0, or -1 with t->msg set. */
int chem_tok_open(chem_tokens *t, const char *path);
void chem_tok_close(chem_tokens *t);

/* The next token into t->tok: 0, or -1 at the end of the file or on an error
 * (t->msg says which; `what` names the expected token in the message). */
int chem_tok_next(chem_tokens *t, const char *what);
/* The next token, which must be `word`. */
int chem_tok_expect(chem_tokens *t, const char *word);
/* The next token as a finite double / an integer in [lo, hi]. */
int chem_tok_double(chem_tokens *t, const char *what, double *x);
int chem_tok_int(chem_tokens *t, const char *what, long lo, long hi, long *x);
/* Records an error at the current line (printf format); returns -1. */
int chem_tok_fail(chem_tokens *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
