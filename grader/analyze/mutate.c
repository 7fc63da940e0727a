#include "analyze/mutate.h"
int mutate_main(int argc, char **argv, const char *templates_dir)
{
    (void)argc;
    (void)argv;
    (void)templates_dir;
    return 3;
}
