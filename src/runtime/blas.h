/* The host's CBLAS, loaded at run time (dlopen): OpenBLAS first, then the system's CBLAS. Used by
 * `scaleprobe node` (host GEMMs) and the host backend's GEMM compute (proxy --compute gemm). Not
 * linked: OpenBLAS's start-up allocates and clears a 128 MiB buffer (0.4 s and ~200 MiB RSS per
 * process here), which every rank of every other command would pay. */
#ifndef SP_BLAS_H
#define SP_BLAS_H

/* The CBLAS interface is standard: row major is 101, column major 102, no transpose 111. */
enum { SP_CBLAS_ROW_MAJOR = 101, SP_CBLAS_COL_MAJOR = 102, SP_CBLAS_NO_TRANS = 111 };

typedef void (*sp_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                            const float *, int, float, float *, int);
typedef void (*sp_dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                            const double *, int, double, double *, int);

typedef struct {
    void *lib;
    char name[64];         /* the library file that was loaded */
    sp_sgemm_fn sgemm;
    sp_dgemm_fn dgemm;
    void (*set_threads)(int); /* OpenBLAS only; NULL otherwise */
    int (*get_threads)(void);
    char *(*config)(void);
} sp_blas_t;

/* Load the first CBLAS with cblas_sgemm and cblas_dgemm; 1 on success, 0 (b zeroed) when none.
 * Close with sp_blas_close (a zeroed b is a no-op). */
int sp_blas_open(sp_blas_t *b);
void sp_blas_close(sp_blas_t *b);

/* Pin the BLAS's own threads (a process-wide setting of OpenBLAS); returns the count it reports
 * afterwards, 1 for a BLAS without the call. */
int sp_blas_threads(sp_blas_t *b, int threads);

/* The libraries sp_blas_open tries, for messages: "libopenblas.so.0, ..." */
extern const char sp_blas_tried[];

#endif
