/*
 * cudatool: where a CUDA toolkit program (compute-sanitizer, ncu) is, looked for as a user
 * would: CUDA_HOME/bin, /usr/local/cuda/bin, every folder of PATH, then the bin/ beside the
 * nvcc the build uses. The path returned is resolved (realpath) and the caller frees it; NULL
 * when none is an executable file.
 */
#ifndef LG_RUN_CUDATOOL_H
#define LG_RUN_CUDATOOL_H

char *cudatool_find(const char *name, const char *cuda_home, const char *path_env,
                    const char *nvcc_home);

#endif
