/*
 * tokens.c -- the token reader of the chemistry data files (tokens.h).
 */
#include "tokens.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int chem_tok_fail(chem_tokens *t, const char *fmt, ...)
{
    if (t->msg[0]) return -1; /* keep the first error: the later ones follow from it */
    int n = snprintf(t->msg, sizeof t->msg, "%s:%ld: ", t->path, t->line);
    if (n < 0 || (size_t)n >= sizeof t->msg) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg + n, sizeof t->msg - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

int chem_tok_open(chem_tokens *t, const char *path)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    t->line = 1;
    t->f = fopen(path, "r");
    if (!t->f) {
        snprintf(t->msg, sizeof t->msg, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void chem_tok_close(chem_tokens *t)
{
    if (t->f) fclose(t->f);
    t->f = NULL;
}

int chem_tok_next(chem_tokens *t, const char *what)
{
    int c;
    for (;;) { /* skip blanks and comments, counting lines */
        c = getc(t->f);
        if (c == '#') {
            while ((c = getc(t->f)) != EOF && c != '\n') {}
        }
        if (c == '\n') t->line++;
        else if (c == EOF || !(c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v')) break;
    }
    if (c == EOF) {
        t->tok[0] = 0;
        return chem_tok_fail(t, "end of file where %s was expected", what);
    }
    size_t n = 0;
    while (c != EOF && c != '#' && !(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')) {
        if (n + 1 >= sizeof t->tok) return chem_tok_fail(t, "token longer than %d characters", CHEM_TOKEN_MAX - 1);
        t->tok[n++] = (char)c;
        c = getc(t->f);
    }
    t->tok[n] = 0;
    if (c != EOF) ungetc(c, t->f); /* a newline is counted when read again */
    return 0;
}

int chem_tok_expect(chem_tokens *t, const char *word)
{
    if (chem_tok_next(t, word)) return -1;
    if (strcmp(t->tok, word) != 0) return chem_tok_fail(t, "expected '%s', found '%s'", word, t->tok);
    return 0;
}

int chem_tok_double(chem_tokens *t, const char *what, double *x)
{
    if (chem_tok_next(t, what)) return -1;
    char *end;
    errno = 0;
    *x = strtod(t->tok, &end);
    /* ERANGE on underflow is fine: a denormal or zero is still the number written */
    if (*end || end == t->tok || !isfinite(*x))
        return chem_tok_fail(t, "%s: '%s' is not a finite number", what, t->tok);
    return 0;
}

int chem_tok_int(chem_tokens *t, const char *what, long lo, long hi, long *x)
{
    if (chem_tok_next(t, what)) return -1;
    char *end;
    errno = 0;
    *x = strtol(t->tok, &end, 10);
    if (*end || end == t->tok || errno || *x < lo || *x > hi)
        return chem_tok_fail(t, "%s: '%s' is not an integer in [%ld, %ld]", what, t->tok, lo, hi);
    return 0;
}
