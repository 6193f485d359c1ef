/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-bench-double: dmesh-bench linked with the NCCL and CUDA test
 * doubles (test/nccl_double, test/gpu/cuda_double.c), so that --nccl runs
 * without a GPU. The process sees eight GPUs, as a node with eight would
 * show them; device binding then gives each rank its own. */
#include "config.h"

#include "bench.h"
#include "cuda_double.h"

__attribute__((constructor)) static void bench_double_devices(void)
{
    cuda_double_set_devices(CUDA_DOUBLE_NODE_GPUS, cuda_double_node_gpus);
    bench_cuda_double = 1;
}
