/* Hostile submission "include_bomb": this header includes itself, with no guard. The
 * preprocessor gives up at its nesting limit (200 in gcc) with an error. */
#include "bomb.h"
