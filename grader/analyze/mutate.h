#ifndef LG_MUTATE_H
#define LG_MUTATE_H
int mutate_main(int argc, char **argv, const char *templates_dir);
#endif
