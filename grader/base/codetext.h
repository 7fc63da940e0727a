/*
 * codetext: a C or CUDA source as code, without its comments and its layout, so that two
 * copies that differ only there read the same (grade/decisions.h keys its memory by it).
 * String and character literals are kept exactly; every run of blanks and comments becomes
 * one space where two word characters would otherwise join, and nothing elsewhere.
 * Identifiers are kept: renaming is a change of code here (analyze/ is for similarity).
 */
#ifndef LG_CODETEXT_H
#define LG_CODETEXT_H

#include "base/strbuf.h"

#include <stddef.h>

/* src (n bytes) as code, appended to out. */
void code_text(const char *src, size_t n, struct strbuf *out);

#endif
