/* GPU half of calibrate for machines built without CUDA. */
#include <stdio.h>

void lg_calibrate_gpu(void);

void lg_calibrate_gpu(void)
{
    printf("gpu none\n");
}
