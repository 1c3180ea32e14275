// Fill and verification kernels of the nccl backend: grid-stride loops over the same inline
// pattern formulas the host uses (pattern.h, dtype_conv.h), so a GPU checks exactly what the
// host would. Verification reads the buffer once and keeps one counter per block.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "backend_nccl_kernels.h"

static __global__ void fill_kernel(sp_pattern_t p, void *buf, size_t count)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        sp_dtype_set(p.dtype, buf, i, sp_pattern_input_at(&p, i));
    }
}

static __global__ void check_kernel(sp_pattern_t p, const void *buf, size_t count, double rel_tol,
                                    unsigned long long *counter)
{
    __shared__ unsigned long long block_wrong;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long wrong = 0;

    if (threadIdx.x == 0) {
        block_wrong = 0;
    }
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        double got = sp_dtype_get(p.dtype, buf, i);
        double want = sp_pattern_output_at(&p, i);
        bool same = rel_tol > 0.0 ? fabs(got - want) <= rel_tol * fmax(1.0, fabs(want))
                                  : got == want;
        wrong += same ? 0 : 1;
    }
    if (wrong > 0) {
        atomicAdd(&block_wrong, wrong);
    }
    __syncthreads();
    if (threadIdx.x == 0 && block_wrong > 0) {
        atomicAdd(counter, block_wrong);
    }
}

static unsigned grid_for(size_t count)
{
    size_t blocks = (count + 255) / 256;
    return (unsigned)(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks);
}

extern "C" int sp_cuda_pattern_fill(void *stream, const sp_pattern_t *pattern, void *buf,
                                    size_t count)
{
    if (count == 0) {
        return (int)cudaSuccess;
    }
    fill_kernel<<<grid_for(count), 256, 0, (cudaStream_t)stream>>>(*pattern, buf, count);
    return (int)cudaGetLastError();
}

extern "C" int sp_cuda_pattern_check(void *stream, const sp_pattern_t *pattern, const void *buf,
                                     size_t count, double rel_tol, unsigned long long *counter)
{
    if (count == 0) {
        return (int)cudaSuccess;
    }
    check_kernel<<<grid_for(count), 256, 0, (cudaStream_t)stream>>>(*pattern, buf, count, rel_tol,
                                                                    counter);
    return (int)cudaGetLastError();
}

static __device__ uint64_t global_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __global__ void spin_kernel(uint64_t duration_ns)
{
    uint64_t start = global_ns();
    while (global_ns() - start < duration_ns) {
    }
}

extern "C" int sp_cuda_spin(void *stream, uint64_t duration_ns)
{
    spin_kernel<<<1, 32, 0, (cudaStream_t)stream>>>(duration_ns);
    return (int)cudaGetLastError();
}

static __global__ void gemm_fill_kernel(int type, void *buf, size_t count)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        float v = ((float)(i % 13) - 6.0f) / 64.0f;
        if (type == 1) {
            ((__half *)buf)[i] = __float2half(v);
        } else if (type == 2) {
            ((__nv_bfloat16 *)buf)[i] = __float2bfloat16(v);
        } else {
            ((float *)buf)[i] = v;
        }
    }
}

extern "C" int sp_cuda_gemm_fill(void *stream, int type, void *buf, size_t count)
{
    gemm_fill_kernel<<<grid_for(count), 256, 0, (cudaStream_t)stream>>>(type, buf, count);
    return (int)cudaGetLastError();
}
