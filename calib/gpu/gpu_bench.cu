// calib/gpu/gpu_bench.cu: GPU calibration microbenchmarks for mooncake-sim. On GPU 0 it times
// one GPU's share of one tensor-parallel layer of a built-in model: the four GEMMs (cuBLAS, BF16),
// causal prefill attention (own tensor-core kernel: wmma, BF16 in, FP32 accumulate), decode
// attention (own tiled kernel) and pinned host<->device copies, after checking the kernels
// against a CPU reference. Writes JSON of kind "gpu" (gpu info, prefill_layer,
// decode_layer, copies, checks; seconds per layer per GPU) for the project's fitting tool.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <getopt.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

typedef __nv_bfloat16 bf16;
typedef __nv_bfloat162 bf162;
namespace wmma = nvcuda::wmma;

// Every CUDA and cuBLAS call is checked: file:line, the error, exit status 1.
#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    exit(1); } } while (0)
#define CKB(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cublasGetStatusString(s_)); \
    exit(1); } } while (0)

constexpr int HD = 128;                  // head dimension (every built-in model)
constexpr int HW = HD / 2;               // one head row in bf16x2 words
constexpr int PBQ = 64, PBK = 64;        // prefill query tile, key tile
constexpr int PTH = 128;                 // prefill threads: 4 warps of 16 query rows
constexpr int PLD = HD + 8, SLD = PBK + 4, PPLD = PBK + 8;  // prefill smem rows: Q/K/V, S, P (elements)
// Prefill dynamic shared memory (bytes): K, V tiles; Q tile, later the scores S;
// P hi and lo parts; one float per query row. Every part 128-byte aligned.
constexpr int PSM_K = 0, PSM_V = PSM_K + PBK * PLD * 2, PSM_QS = PSM_V + PBK * PLD * 2;
constexpr int PSM_PH = PSM_QS + std::max(PBQ * PLD * 2, PBQ * SLD * 4), PSM_PL = PSM_PH + PBQ * PPLD * 2;
constexpr int PSM_A = PSM_PL + PBQ * PPLD * 2, PSMEM = PSM_A + PBQ * 4;
static_assert(PSM_V % 128 == 0 && PSM_QS % 128 == 0 && PSM_PH % 128 == 0 && PSM_PL % 128 == 0 &&
              PSM_A % 128 == 0, "wmma needs 32-byte aligned tiles");
constexpr int DTK = 64, DTH = 128;       // decode key tile; threads (one per dim)
constexpr int MAXG = 8;                  // most query heads sharing one KV head
constexpr double TOL = 2e-2;             // BF16 relative tolerance of the checks
constexpr double ATTN_MAX_RUN_S = 20.0;  // skip attention shapes predicted longer
// Decode grid: batches 1..256 x per-request contexts 1k..128k, keeping the points
// whose batch total B x ctx is at most DEC_MAX_TOK (QUICK_DEC_MAX_TOK with --quick):
// 2^23 = 256 x 32k, the largest point of earlier grids; 1M tokens when quick.
constexpr long long DEC_MAX_TOK = 1ll << 23, QUICK_DEC_MAX_TOK = 1ll << 20;
#define GRID_STRIDE(i, n) for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; \
                                 i < (n); i += (size_t)gridDim.x * blockDim.x)

// ---------------------------------------------------------------- kernels
__device__ float warp_sum(float v) {
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
    return v;
}
__device__ float warp_max(float v) {
    for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(~0u, v, o));
    return v;
}

// Deterministic pseudo-random values in [-scale, scale] (splitmix64 of the index).
__global__ void fill_kernel(bf16 *p, size_t n, unsigned long long seed, float scale) {
    GRID_STRIDE(i, n) {
        unsigned long long z = ((i + 1) * 0x9E3779B97F4A7C15ull) ^ seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        p[i] = __float2bfloat16(scale * ((float)((z ^ (z >> 31)) >> 40) * (2.0f / 16777216.0f) - 1.0f));
    }
}

// Reads a zeroed buffer twice the size of L2 so each timed sample starts cold
// (weights and KV come from HBM, as in a real layer, not from the last repeat).
__global__ void l2_flush_kernel(const int4 *p, size_t n, int *sink) {
    int acc = 0;
    GRID_STRIDE(i, n) acc ^= p[i].x ^ p[i].y ^ p[i].z ^ p[i].w;
    if (acc == 0x7fffffff) *sink = acc;  // never true; keeps the loads
}

// Steps of prefill_attn_kernel (below), force-inlined so that the fragments
// passed by reference stay in registers.
typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> AFrag;  // Q rows, P parts
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> CFrag;              // S, O, row map

// Prefill: loads the block's Q tile (rows from q0 of head h; rows past n zero)
// into Qs, then the warp's 16 rows (from wr0) into qf. Ends with Qs free.
__device__ __forceinline__ void prefill_load_q(const bf16 *Q, bf16 *Qs, AFrag (&qf)[HD / 16],
                                               int n, int H, int h, int q0, int wr0) {
    const int tid = threadIdx.x;
    const int4 z4 = make_int4(0, 0, 0, 0);
    for (int i = tid; i < PBQ * HD / 8; i += PTH) {  // 8 bf16 (16 bytes) per step
        const int rr = i / (HD / 8), c = i % (HD / 8) * 8;
        *reinterpret_cast<int4 *>(Qs + rr * PLD + c) = q0 + rr < n
            ? *reinterpret_cast<const int4 *>(Q + ((size_t)(q0 + rr) * H + h) * HD + c) : z4;
    }
    __syncthreads();
#pragma unroll
    for (int d = 0; d < HD / 16; d++) wmma::load_matrix_sync(qf[d], Qs + wr0 * PLD + d * 16, PLD);
    __syncthreads();  // Q is in registers; its shared memory now holds S
}

// Prefill: loads keys and values k0..k0+PBK-1 of kv head g into Ks, Vs, zero
// from kend on. Waits for the previous tile to be consumed first.
__device__ __forceinline__ void prefill_load_kv(const bf16 *K, const bf16 *V, bf16 *Ks, bf16 *Vs,
                                                int k0, int kend, int KVH, int g) {
    const int tid = threadIdx.x;
    const int4 z4 = make_int4(0, 0, 0, 0);
    __syncthreads();  // the previous tile is consumed (and S, P, As are free)
    for (int i = tid; i < PBK * HD / 8; i += PTH) {
        const int rr = i / (HD / 8), c = i % (HD / 8) * 8, k = k0 + rr;
        const size_t off = ((size_t)k * KVH + g) * HD + c;
        const bool in = k < kend;
        *reinterpret_cast<int4 *>(Ks + rr * PLD + c) = in ? *reinterpret_cast<const int4 *>(K + off) : z4;
        *reinterpret_cast<int4 *>(Vs + rr * PLD + c) = in ? *reinterpret_cast<const int4 *>(V + off) : z4;
    }
    __syncthreads();
}

// Prefill: the warp's scores Sw[16 rows][0, 16 nkt) = Q K^T over its nkt
// visible key fragments; K^T is K read col_major.
__device__ __forceinline__ void prefill_scores(const AFrag (&qf)[HD / 16], const bf16 *Ks, float *Sw,
                                               int nkt) {
    for (int kt = 0; kt < nkt; kt++) {
        CFrag s;
        wmma::fill_fragment(s, 0.0f);
#pragma unroll
        for (int d = 0; d < HD / 16; d++) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> kf;
            wmma::load_matrix_sync(kf, Ks + kt * 16 * PLD + d * 16, PLD);
            wmma::mma_sync(s, qf[d], kf, s);
        }
        wmma::store_matrix_sync(Sw + kt * 16, s, SLD, wmma::mem_row_major);
    }
}

// Prefill online softmax of one key tile (from k0, ncol columns) for one score
// row srow at position qpos, shared by 2 lanes (half picks the columns): updates
// the running max m (log2 units; sl2 scales scores to them) and sum l, writes
// the row's P hi and lo parts to ph, pl and its rescale factor to *arow.
// Key 0 is in the first tile and visible to every row, so m is finite from
// then on even when a later tile is fully masked for a row.
__device__ __forceinline__ void prefill_softmax(const float *srow, bf16 *ph, bf16 *pl, float *arow,
                                                int k0, int ncol, int qpos, int half, float sl2,
                                                float &m, float &l) {
    float tmax = -INFINITY, lsum = 0.0f;
    for (int c = half; c < ncol; c += 2)
        if (k0 + c <= qpos) tmax = fmaxf(tmax, srow[c]);
    tmax = fmaxf(tmax, __shfl_xor_sync(0xffffffffu, tmax, 1)) * sl2;
    const float mnew = fmaxf(m, tmax), alpha = exp2f(m - mnew);
    for (int c = half; c < ncol; c += 2) {
        const float pj = k0 + c <= qpos ? exp2f(srow[c] * sl2 - mnew) : 0.0f;
        const bf16 hi = __float2bfloat16(pj);
        ph[c] = hi;
        pl[c] = __float2bfloat16(pj - __bfloat162float(hi));
        lsum += pj;
    }
    lsum += __shfl_xor_sync(0xffffffffu, lsum, 1);
    l = l * alpha + lsum;
    m = mnew;
    if (!half) *arow = alpha;
}

// Prefill: multiplies each row of the warp's O fragments by its factor in Aw
// (indexed by the warp's row 0..15, which rowf gives per element).
__device__ __forceinline__ void prefill_scale_rows(CFrag (&acc)[HD / 16], const CFrag &rowf,
                                                   const float *Aw) {
#pragma unroll
    for (int i = 0; i < rowf.num_elements; i++) {
        const float a = Aw[(int)rowf.x[i]];
#pragma unroll
        for (int f = 0; f < HD / 16; f++) acc[f].x[i] *= a;
    }
}

// Prefill: O += (P_hi + P_lo) V over the warp's nkt visible key fragments;
// Phw, Plw are the warp's first P rows.
__device__ __forceinline__ void prefill_pv(CFrag (&acc)[HD / 16], const bf16 *Phw, const bf16 *Plw,
                                           const bf16 *Vs, int nkt) {
    for (int kt = 0; kt < nkt; kt++) {
        AFrag ph, pl;
        wmma::load_matrix_sync(ph, Phw + kt * 16, PPLD);
        wmma::load_matrix_sync(pl, Plw + kt * 16, PPLD);
#pragma unroll
        for (int f = 0; f < HD / 16; f++) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> vf;
            wmma::load_matrix_sync(vf, Vs + kt * 16 * PLD + f * 16, PLD);
            wmma::mma_sync(acc[f], ph, vf, acc[f]);
            wmma::mma_sync(acc[f], pl, vf, acc[f]);
        }
    }
}

// Prefill: stages the warp's normalized O 64 output dims at a time through its
// score rows Sw and writes row r (query q, head h; skipped past n) as bf16,
// 32 dims per lane.
__device__ __forceinline__ void prefill_store_o(const CFrag (&acc)[HD / 16], float *Sw, bf16 *O,
                                                int q, int n, int H, int h, int r, int half) {
    bf162 *O2 = reinterpret_cast<bf162 *>(O + ((size_t)q * H + h) * HD);
#pragma unroll
    for (int hh = 0; hh < 2; hh++) {
#pragma unroll
        for (int f = 0; f < HD / 32; f++)
            wmma::store_matrix_sync(Sw + f * 16, acc[hh * HD / 32 + f], SLD, wmma::mem_row_major);
        __syncwarp();
        if (q < n)  // lane: 32 dims of row r
            for (int j = 0; j < 16; j++) {
                const int c = half * 32 + 2 * j;
                O2[(hh * HD / 2 + c) / 2] = __floats2bfloat162_rn(Sw[r * SLD + c], Sw[r * SLD + c + 1]);
            }
        __syncwarp();
    }
}

// Causal prefill attention of n new tokens over p cached ones (one request), on
// tensor cores (wmma m16n16k16, BF16 in, FP32 accumulate), flash-attention style.
// Q, O: [n][H][HD]; K, V: [p + n][KVH][HD]; query i sits at position p + i and
// sees keys 0..p+i; query head h reads kv head h / (H / KVH). Block = (64-query
// tile, head), 4 warps of 16 query rows each. Per 64-key tile: S = Q K^T with
// wmma into shared memory (K read as a col_major K^T), online softmax of S in
// FP32 (2 lanes per row), then O += P V with wmma, O held in accumulator
// fragments. P is split into bf16 hi + lo parts (two MMAs) so its rounding stays
// far below the check's tolerance. Key fragments a warp cannot see (beyond the
// diagonal) are skipped, and so are whole tiles; keys past the tile's last
// visible one and query rows past n are zero-padded.
// Shared memory 69 KB (dynamic; rows padded by 16 bytes against bank conflicts).
__global__ void __launch_bounds__(PTH)
prefill_attn_kernel(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O,
                    int n, int p, int H, int KVH, float scale) {
    extern __shared__ __align__(128) unsigned char psm[];
    bf16 *Ks = reinterpret_cast<bf16 *>(psm + PSM_K), *Vs = reinterpret_cast<bf16 *>(psm + PSM_V);
    bf16 *Qs = reinterpret_cast<bf16 *>(psm + PSM_QS);  // Q tile; then the scores S
    float *Ss = reinterpret_cast<float *>(psm + PSM_QS);
    bf16 *Ph = reinterpret_cast<bf16 *>(psm + PSM_PH), *Pl = reinterpret_cast<bf16 *>(psm + PSM_PL);
    float *As = reinterpret_cast<float *>(psm + PSM_A);  // per row: rescale factor, then 1 / sum
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, wr0 = warp * 16;
    const int r = lane >> 1, half = lane & 1;  // softmax: lanes 2r, 2r+1 own the warp's row r
    const int h = blockIdx.y, g = h / (H / KVH), q0 = blockIdx.x * PBQ;
    const float sl2 = scale * 1.4426950408889634f;  // scores in log2 units, for exp2f
    AFrag qf[HD / 16];  // the warp's Q rows
    prefill_load_q(Q, Qs, qf, n, H, h, q0, wr0);
    // The element-to-(row, col) map of an accumulator fragment is unspecified but
    // fixed, so loading a matrix whose entries are their row numbers tells each
    // thread the row of each of its elements (for per-row rescaling of O).
    float *Sw = Ss + wr0 * SLD;  // this warp's 16 score rows
    for (int i = lane; i < 256; i += 32) Sw[(i / 16) * SLD + i % 16] = (float)(i / 16);
    __syncwarp();
    CFrag rowf, acc[HD / 16];
    wmma::load_matrix_sync(rowf, Sw, SLD, wmma::mem_row_major);
#pragma unroll
    for (int f = 0; f < HD / 16; f++) wmma::fill_fragment(acc[f], 0.0f);
    const int qpos = p + min(q0 + wr0 + r, n - 1);    // padding rows act as the last query
    const int wlast = p + min(q0 + wr0 + 15, n - 1);  // the warp's last visible key
    const int kend = p + min(q0 + PBQ, n);            // the tile needs keys [0, kend)
    float m = -INFINITY, l = 0.0f;  // row r's running max (log2 units) and sum
    for (int k0 = 0; k0 < kend; k0 += PBK) {
        prefill_load_kv(K, V, Ks, Vs, k0, kend, KVH, g);
        if (k0 > wlast) continue;  // the whole tile is masked for this warp
        const int nkt = min(PBK / 16, (wlast - k0) / 16 + 1), ncol = nkt * 16;  // visible key fragments
        prefill_scores(qf, Ks, Sw, nkt);
        __syncwarp();
        prefill_softmax(Sw + r * SLD, Ph + (wr0 + r) * PPLD, Pl + (wr0 + r) * PPLD, As + wr0 + r,
                        k0, ncol, qpos, half, sl2, m, l);
        __syncwarp();  // P and the row factors come from the whole warp
        prefill_scale_rows(acc, rowf, As + wr0);
        prefill_pv(acc, Ph + wr0 * PPLD, Pl + wr0 * PPLD, Vs, nkt);
    }
    // Normalize by the row sums, then write the valid rows out.
    __syncwarp();  // every lane is done with the last tile's S and row factors
    if (!half) As[wr0 + r] = 1.0f / l;
    __syncwarp();
    prefill_scale_rows(acc, rowf, As + wr0);
    prefill_store_o(acc, Sw, O, q0 + wr0 + r, n, H, h, r, half);
}

// Decode attention, split over the context: B requests, one query token each,
// over ctx tokens of its own KV. Q: [B][H][HD]; K, V: [B][ctx][KVH][HD].
// Block = (split, kv head, request): the G = H/KVH query heads of that kv head
// over one chunk of the context, in tiles of 64 keys, online softmax; partial
// results (unnormalized O, max, sum) go to part: [B][H][splits][HD + 2].
__global__ void __launch_bounds__(DTH)
decode_attn_kernel(const bf16 *Q, const bf16 *K, const bf16 *V, float *part,
                   int ctx, int H, int KVH, int chunk, float scale) {
    __shared__ float2 qv[MAXG][HW];
    __shared__ float S[MAXG][DTK], m_s[MAXG], l_s[MAXG], a_s[MAXG];
    const int sp = blockIdx.x, g = blockIdx.y, b = blockIdx.z, splits = gridDim.x;
    const int G = H / KVH, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int c0 = sp * chunk, c1 = min(ctx, c0 + chunk);
    const size_t kvrow = (size_t)KVH * HD;
    const bf16 *Kb = K + (size_t)b * ctx * kvrow + (size_t)g * HD;
    const bf16 *Vb = V + (size_t)b * ctx * kvrow + (size_t)g * HD;
    const bf162 *Q2 = reinterpret_cast<const bf162 *>(Q) + ((size_t)b * H + (size_t)g * G) * HW;
    for (int i = tid; i < G * HW; i += DTH) qv[i / HW][i % HW] = __bfloat1622float2(Q2[i]);
    if (tid < G) m_s[tid] = -INFINITY, l_s[tid] = 0.0f;
    float acc[MAXG] = {};  // output dim tid of each query head
    for (int k0 = c0; k0 < c1; k0 += DTK) {
        const int kn = min(DTK, c1 - k0);
        __syncthreads();  // Q is loaded / the previous tile's S is consumed
        for (int j = warp; j < kn; j += DTH / 32) {  // scores: one warp per key
            const bf162 *kr = reinterpret_cast<const bf162 *>(Kb + (size_t)(k0 + j) * kvrow);
            const float2 ka = __bfloat1622float2(kr[lane]), kb = __bfloat1622float2(kr[lane + 32]);
#pragma unroll
            for (int h = 0; h < MAXG; h++) {
                if (h >= G) break;
                const float2 qa = qv[h][lane], qb = qv[h][lane + 32];
                const float d = warp_sum(qa.x * ka.x + qa.y * ka.y + qb.x * kb.x + qb.y * kb.y);
                if (lane == 0) S[h][j] = d * scale;
            }
        }
        __syncthreads();
        for (int h = warp; h < G; h += DTH / 32) {  // softmax update: one warp per head
            const float mold = m_s[h];
            const float v0 = lane < kn ? S[h][lane] : -INFINITY;
            const float v1 = lane + 32 < kn ? S[h][lane + 32] : -INFINITY;
            const float mnew = fmaxf(mold, warp_max(fmaxf(v0, v1)));
            const float p0 = __expf(v0 - mnew), p1 = __expf(v1 - mnew);  // 0 when masked
            S[h][lane] = p0, S[h][lane + 32] = p1;
            const float sum = warp_sum(p0 + p1), alpha = __expf(mold - mnew);
            if (lane == 0) a_s[h] = alpha, l_s[h] = l_s[h] * alpha + sum, m_s[h] = mnew;
        }
        __syncthreads();
#pragma unroll
        for (int h = 0; h < MAXG; h++) if (h < G) acc[h] *= a_s[h];
        for (int j = 0; j < kn; j++) {
            const float v = __bfloat162float(Vb[(size_t)(k0 + j) * kvrow + tid]);
#pragma unroll
            for (int h = 0; h < MAXG; h++) if (h < G) acc[h] += S[h][j] * v;
        }
    }
#pragma unroll
    for (int h = 0; h < MAXG; h++) {
        if (h >= G) break;
        float *o = part + (((size_t)b * H + (size_t)g * G + h) * splits + sp) * (HD + 2);
        o[tid] = acc[h];
        if (tid == 0) o[HD] = m_s[h], o[HD + 1] = l_s[h];
    }
}

// Merges the splits of each (request, head): O = sum_s w_s O_s / sum_s w_s l_s.
__global__ void decode_combine_kernel(const float *part, bf16 *O, int splits) {
    const float *pp = part + (size_t)blockIdx.x * splits * (HD + 2);
    float M = -INFINITY, L = 0.0f, acc = 0.0f;
    for (int s = 0; s < splits; s++) M = fmaxf(M, pp[s * (HD + 2) + HD]);
    for (int s = 0; s < splits; s++) {
        const float *o = pp + s * (HD + 2);
        const float w = __expf(o[HD] - M);
        L += w * o[HD + 1];
        acc += w * o[threadIdx.x];
    }
    O[(size_t)blockIdx.x * HD + threadIdx.x] = __float2bfloat16(acc / L);
}

// ---------------------------------------------------------------- host helpers
struct Shard { int layers, d, H, KVH, FF; };  // one GPU's share of a layer
static cudaEvent_t g_ev0, g_ev1;
static int4 *g_flush;  // the L2 flush buffer, its length and sink
static size_t g_flush_n;
static int *g_sink, g_sms;

template <class T = bf16> static T *dalloc(size_t n) {
    T *p = nullptr;
    CK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)));
    return p;
}
static void dfill(bf16 *p, size_t n, unsigned long long seed, float scale = 1.0f) {
    fill_kernel<<<(unsigned)std::min<size_t>(n / 256 + 1, 8192), 256>>>(p, n, seed, scale);
    CK(cudaGetLastError());
}
static bool fits(size_t bytes) {  // leaves 512 MiB for cuBLAS and the runtime
    size_t fr = 0, tot = 0;
    CK(cudaMemGetInfo(&fr, &tot));
    return bytes + (512ull << 20) < fr;
}
template <class F> static double time_once(F &fn, bool flush) {
    if (flush) l2_flush_kernel<<<1024, 256>>>(g_flush, g_flush_n, g_sink);
    CK(cudaGetLastError());
    CK(cudaEventRecord(g_ev0));
    fn();
    CK(cudaEventRecord(g_ev1));
    float ms = 0.0f;
    CK(cudaEventSynchronize(g_ev1));
    CK(cudaEventElapsedTime(&ms, g_ev0, g_ev1));
    return ms * 1e-3;
}
// Seconds: the median of the repeats after warm-up (fewer for long shapes).
template <class F> static double time_median(F fn, bool flush) {
    const double first = time_once(fn, flush);  // warm-up, and a first estimate
    if (first < 0.1) time_once(fn, flush);      // a second warm-up for short ones
    const int reps = first > 5.0 ? 1 : first > 0.3 ? 3 : first < 1e-3 ? 9 : 5;
    std::vector<double> t;
    for (int i = 0; i < reps; i++) t.push_back(time_once(fn, flush));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// Row-major C[t x n] = A[t x k] B[k x n], BF16 in/out, FP32 accumulate.
// cuBLAS is column-major, so it computes C^T = B^T A^T.
static void gemm(cublasHandle_t hb, const bf16 *A, const bf16 *B, bf16 *C, int t, int k, int n) {
    const float one = 1.0f, zero = 0.0f;
    CKB(cublasGemmEx(hb, CUBLAS_OP_N, CUBLAS_OP_N, n, t, k, &one, B, CUDA_R_16BF, n, A, CUDA_R_16BF,
                     k, &zero, C, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}
static void prefill_attn(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O,
                         int n, int p, int H, int KVH) {
    const dim3 grid((unsigned)((n + PBQ - 1) / PBQ), (unsigned)H);
    static bool smem_set = false;  // opt in to over 48 KB of dynamic shared memory, once
    if (!smem_set) {
        CK(cudaFuncSetAttribute(prefill_attn_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, PSMEM));
        smem_set = true;
    }
    prefill_attn_kernel<<<grid, PTH, PSMEM>>>(Q, K, V, O, n, p, H, KVH, 1.0f / sqrtf((float)HD));
    CK(cudaGetLastError());
}
// Splits for about 4 blocks per SM, chunks of at least 128 keys.
static int decode_splits(int B, int ctx, int KVH) {
    const int want = (4 * g_sms + B * KVH - 1) / (B * KVH);
    return std::max(1, std::min(want, (ctx + 127) / 128));
}
static size_t part_n(int B, int H, int splits) { return (size_t)B * H * splits * (HD + 2); }
static void decode_attn(const bf16 *Q, const bf16 *K, const bf16 *V, bf16 *O, float *part,
                        int B, int ctx, int H, int KVH, int splits) {
    const int chunk = (ctx + splits - 1) / splits;
    splits = (ctx + chunk - 1) / chunk;  // no empty chunk
    decode_attn_kernel<<<dim3((unsigned)splits, (unsigned)KVH, (unsigned)B), DTH>>>(
        Q, K, V, part, ctx, H, KVH, chunk, 1.0f / sqrtf((float)HD));
    CK(cudaGetLastError());
    decode_combine_kernel<<<(unsigned)(B * H), HD>>>(part, O, splits);
    CK(cudaGetLastError());
}

// ---------------------------------------------------------------- checks
static float F(bf16 x) { return __bfloat162float(x); }
// Random v in [-scale, scale), on device.
static bf16 *rand_dev(std::vector<bf16> &v, size_t n, unsigned &st, float scale = 1.0f) {
    v.resize(n);
    for (bf16 &x : v)  // LCG; 24 bits to [-1, 1)
        st = st * 1664525u + 1013904223u,
        x = __float2bfloat16(scale * ((float)(st >> 8) / 8388608.0f - 1.0f));
    bf16 *d = dalloc(n);
    CK(cudaMemcpy(d, v.data(), n * sizeof(bf16), cudaMemcpyHostToDevice));
    return d;
}
// Per-element relative error, the denominator floored at 1% of the largest
// reference magnitude so near-zero outputs do not dominate; NaN counts as inf.
static double rel_err(const bf16 *dev, const std::vector<double> &ref) {
    std::vector<bf16> got(ref.size());
    CK(cudaMemcpy(got.data(), dev, got.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
    double peak = 1e-30, worst = 0.0;
    for (double r : ref) peak = std::max(peak, std::fabs(r));
    for (size_t i = 0; i < ref.size(); i++) {
        const double e = std::fabs((double)F(got[i]) - ref[i]) / std::max(std::fabs(ref[i]), 0.01 * peak);
        worst = std::isnan(e) ? INFINITY : std::max(worst, e);
    }
    return worst;
}
// Reference attention of the query at q[qo..] over nkeys keys at k/v[kvo + j ks].
static void ref_attn(const std::vector<bf16> &q, size_t qo, const std::vector<bf16> &k,
                     const std::vector<bf16> &v, size_t kvo, size_t ks, int nkeys, double *out) {
    std::vector<double> s(nkeys);
    double mx = -INFINITY, sum = 0.0;
    for (int j = 0; j < nkeys; j++) {
        double d = 0.0;
        for (int x = 0; x < HD; x++) d += (double)F(q[qo + x]) * F(k[kvo + j * ks + x]);
        mx = std::max(mx, s[j] = d / std::sqrt((double)HD));
    }
    for (int j = 0; j < nkeys; j++) sum += s[j] = std::exp(s[j] - mx);
    for (int x = 0; x < HD; x++) {
        double o = 0.0;
        for (int j = 0; j < nkeys; j++) o += s[j] * F(v[kvo + j * ks + x]);
        out[x] = o / sum;
    }
}
// The GEMM path on t = 64, k = d = 128, n = 192 (three different sizes).
static double check_gemm(cublasHandle_t hb) {
    const int t = 64, k = 128, n = 192;
    unsigned st = 1;
    std::vector<bf16> a, b;
    bf16 *da = rand_dev(a, (size_t)t * k, st), *db = rand_dev(b, (size_t)k * n, st);
    bf16 *dc = dalloc((size_t)t * n);
    std::vector<double> ref((size_t)t * n, 0.0);
    for (int i = 0; i < t; i++)
        for (int j = 0; j < n; j++)
            for (int x = 0; x < k; x++) ref[(size_t)i * n + j] += (double)F(a[i * k + x]) * F(b[x * n + j]);
    gemm(hb, da, db, dc, t, k, n);
    const double e = rel_err(dc, ref);
    for (bf16 *x : {da, db, dc}) CK(cudaFree(x));
    return e;
}
// 4 heads over 2 kv heads. Prefill: (n, p) = (37, 29) and (130, 0: three
// query tiles). Decode: B = 3 over ctx 50 in 4 splits, ctx 150 in one (3
// tiles); and one long request (ctx 131035) in the splits decode_splits
// picks on this GPU, as the benchmark's small-batch long-context shapes get
// (chunks of many tiles, neither chunk nor ctx a multiple of the tile); its
// queries are scaled by 4 so the softmax is far from uniform.
static double check_attn(bool decode) {
    struct Case { int n, p, B, ctx, splits; float qscale; };  // splits 0: decode_splits
    static const Case pre[] = {{37, 29, 0, 0, 0, 1.0f}, {130, 0, 0, 0, 0, 1.0f}};
    static const Case dec[] = {{0, 0, 3, 50, 4, 1.0f}, {0, 0, 3, 150, 1, 1.0f}, {0, 0, 1, 131035, 0, 4.0f}};
    const int H = 4, KVH = 2;
    const size_t ks = (size_t)KVH * HD;
    double worst = 0.0;
    unsigned st = decode ? 3 : 2;
    for (const Case &cs : decode ? std::vector<Case>(dec, dec + 3) : std::vector<Case>(pre, pre + 2)) {
        const int n = decode ? cs.B : cs.n, p = cs.p, ctx = cs.ctx;
        const int splits = !decode ? 0 : cs.splits ? cs.splits : decode_splits(cs.B, ctx, KVH);
        const size_t kvtok = decode ? (size_t)cs.B * ctx : (size_t)(n + p);
        std::vector<bf16> q, k, v;
        bf16 *dq = rand_dev(q, (size_t)n * H * HD, st, cs.qscale), *dk = rand_dev(k, kvtok * ks, st);
        bf16 *dv = rand_dev(v, kvtok * ks, st), *dout = dalloc(q.size());
        std::vector<double> ref(q.size());
        for (int i = 0; i < n; i++)  // query token (prefill) or request (decode) i
            for (int h = 0; h < H; h++)
                ref_attn(q, ((size_t)i * H + h) * HD, k, v,
                         (decode ? (size_t)i * ctx * ks : 0) + (size_t)(h / (H / KVH)) * HD, ks,
                         decode ? ctx : p + i + 1, &ref[((size_t)i * H + h) * HD]);
        float *part = decode ? dalloc<float>(part_n(cs.B, H, splits)) : nullptr;
        if (decode) decode_attn(dq, dk, dv, dout, part, cs.B, ctx, H, KVH, splits);
        else prefill_attn(dq, dk, dv, dout, n, p, H, KVH);
        worst = std::max(worst, rel_err(dout, ref));
        for (bf16 *x : {dq, dk, dv, dout}) CK(cudaFree(x));
        if (part) CK(cudaFree(part));
    }
    return worst;
}

// ---------------------------------------------------------------- benchmarks
// The four GEMMs of one layer for t tokens; -1 when they do not fit in memory.
// The attention output and the MLP activation are stand-ins: the leading
// columns of the QKV and gate+up outputs (same shapes, unit-scale values).
static double bench_gemm(cublasHandle_t hb, const Shard &s, int t) {
    const size_t T = (size_t)t, d = (size_t)s.d, nqkv = (size_t)(s.H + 2 * s.KVH) * HD;
    const size_t hdim = (size_t)s.H * HD, ff = (size_t)s.FF;
    const size_t w = d * nqkv + hdim * d + d * 2 * ff + ff * d, act = T * (2 * d + nqkv + 2 * ff);
    if (!fits((w + act) * sizeof(bf16))) return -1.0;
    bf16 *x = dalloc(T * d), *out = dalloc(T * d), *qkv = dalloc(T * nqkv), *gu = dalloc(T * 2 * ff);
    bf16 *wqkv = dalloc(d * nqkv), *wo = dalloc(hdim * d), *wgu = dalloc(d * 2 * ff), *wd = dalloc(ff * d);
    dfill(x, T * d, 11);  // weights ~ U(+-sqrt(3/k)) keep the outputs at unit scale
    dfill(wqkv, d * nqkv, 12, sqrtf(3.0f / (float)d));
    dfill(wo, hdim * d, 13, sqrtf(3.0f / (float)hdim));
    dfill(wgu, d * 2 * ff, 14, sqrtf(3.0f / (float)d));
    dfill(wd, ff * d, 15, sqrtf(3.0f / (float)ff));
    const int D = s.d, NQKV = (int)nqkv, HDIM = (int)hdim, FF = s.FF;
    const double sec = time_median([&] {
        gemm(hb, x, wqkv, qkv, t, D, NQKV);  // QKV projection
        gemm(hb, qkv, wo, out, t, HDIM, D);  // output projection
        gemm(hb, x, wgu, gu, t, D, 2 * FF);  // MLP gate + up
        gemm(hb, gu, wd, out, t, FF, D);     // MLP down
    }, true);
    for (bf16 *p : {x, out, qkv, gu, wqkv, wo, wgu, wd}) CK(cudaFree(p));
    return sec;
}
static double bench_prefill_attn(const Shard &s, int n, int p) {
    const size_t qn = (size_t)n * s.H * HD, kn = (size_t)(n + p) * s.KVH * HD;
    if (!fits((2 * qn + 2 * kn) * sizeof(bf16))) return -1.0;
    bf16 *q = dalloc(qn), *k = dalloc(kn), *v = dalloc(kn), *o = dalloc(qn);
    dfill(q, qn, 21), dfill(k, kn, 22), dfill(v, kn, 23);
    const double sec = time_median([&] { prefill_attn(q, k, v, o, n, p, s.H, s.KVH); }, true);
    for (bf16 *x : {q, k, v, o}) CK(cudaFree(x));
    return sec;
}
static double bench_decode_attn(const Shard &s, int B, int ctx) {
    const int splits = decode_splits(B, ctx, s.KVH);
    const size_t qn = (size_t)B * s.H * HD, kn = (size_t)B * ctx * s.KVH * HD;
    if (!fits((2 * qn + 2 * kn) * sizeof(bf16) + part_n(B, s.H, splits) * sizeof(float))) return -1.0;
    bf16 *q = dalloc(qn), *k = dalloc(kn), *v = dalloc(kn), *o = dalloc(qn);
    float *part = dalloc<float>(part_n(B, s.H, splits));
    dfill(q, qn, 31), dfill(k, kn, 32), dfill(v, kn, 33);
    const double sec =
        time_median([&] { decode_attn(q, k, v, o, part, B, ctx, s.H, s.KVH, splits); }, true);
    for (bf16 *x : {q, k, v, o}) CK(cudaFree(x));
    CK(cudaFree(part));
    return sec;
}

// ---------------------------------------------------------------- main
static double now_s() {  // wall clock, for the log's time per phase
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
struct ModelSpec { const char *name; int layers, d, heads, kv, ff; };
static const ModelSpec MODELS[] = {
    {"llama2-70b", 80, 8192, 64, 8, 28672}, {"llama3-70b", 80, 8192, 64, 8, 28672},
    {"llama3-8b", 32, 4096, 32, 8, 14336}};
struct Row { int a, b; double gemm_s, attn_s; };  // (n_tok, prefix_tok) or (batch, ctx_tok)
struct CopyRow { size_t bytes; double h2d, d2h; };

static std::string js(const char *s) {  // a quoted, escaped JSON string
    std::string o = "\"";
    char buf[8];
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') o += '\\', o += (char)c;
        else if (c < 0x20) snprintf(buf, sizeof buf, "\\u%04x", c), o += buf;
        else o += (char)c;
    }
    return o + "\"";
}
static void json_rows(FILE *f, const char *name, const char *ka, const char *kb,
                      const std::vector<Row> &rows) {
    fprintf(f, "  \"%s\": [", name);
    for (size_t i = 0; i < rows.size(); i++)
        fprintf(f, "%s\n    {\"%s\": %d, \"%s\": %d, \"gemm_s\": %.6g, \"attn_s\": %.6g}", i ? "," : "",
                ka, rows[i].a, kb, rows[i].b, rows[i].gemm_s, rows[i].attn_s);
    fprintf(f, "\n  ],\n");
}

static void usage(FILE *f) {
    fprintf(f, "usage: mooncake-calib-gpu --model llama2-70b|llama3-70b|llama3-8b [--tp N]\n"
               "         --hardware NAME -o OUT.json [--quick]\n"
               "Times one GPU's share (GPU 0) of one transformer layer under tensor\n"
               "parallelism N (default 8): cuBLAS GEMMs, prefill and decode attention,\n"
               "pinned copies; checks the kernels first; writes calibration JSON to OUT.\n"
               "Decode: batch 1-256 x context per request 1k-128k, at most 8M tokens\n"
               "per batch.\n"
               "  --quick  prefill shapes only up to 8192 tokens, decode batches up to 1M\n");
}

struct Args { const char *model, *hw, *out_path; int tp, quick; Shard s; };
// Parses the command line into a and shards the model over --tp GPUs. Returns
// -1 to go on, else the exit status: 0 after --help, 2 on bad input (printed).
static int parse_args(int argc, char **argv, Args *a) {
    const char *model = nullptr, *hw = nullptr, *out_path = nullptr;
    int tp = 8, quick = 0, c;
    static const struct option opts[] = {
        {"model", required_argument, nullptr, 'm'}, {"tp", required_argument, nullptr, 't'},
        {"hardware", required_argument, nullptr, 'w'}, {"output", required_argument, nullptr, 'o'},
        {"quick", no_argument, nullptr, 'q'}, {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0}};
    while ((c = getopt_long(argc, argv, "m:t:w:o:qh", opts, nullptr)) != -1) {
        if (c == 'm') model = optarg;
        else if (c == 't') tp = atoi(optarg);
        else if (c == 'w') hw = optarg;
        else if (c == 'o') out_path = optarg;
        else if (c == 'q') quick = 1;
        else if (c == 'h') return usage(stdout), 0;
        else return usage(stderr), 2;
    }
    if (!model || !hw || !out_path || optind != argc) return usage(stderr), 2;
    const ModelSpec *ms = nullptr;
    for (const ModelSpec &m : MODELS) if (strcmp(m.name, model) == 0) ms = &m;
    if (!ms) return fprintf(stderr, "unknown model '%s'\n", model), 2;
    if (tp < 1 || ms->heads % tp || ms->ff % tp || (ms->kv % tp && tp % ms->kv))
        return fprintf(stderr, "--tp %d does not shard %s evenly\n", tp, model), 2;
    const Shard s = {ms->layers, ms->d, ms->heads / tp, std::max(1, ms->kv / tp), ms->ff / tp};
    if (ms->d / ms->heads != HD || s.H % s.KVH || s.H / s.KVH > MAXG)
        return fprintf(stderr, "unsupported head layout\n"), 2;
    *a = {model, hw, out_path, tp, quick, s};
    return -1;
}

struct GpuInfo { cudaDeviceProp prop; int drv, rt, sm_khz, mem_khz; double mem_gb; };
// Selects GPU 0, fills gi, prints the GPU and the shard, and sets up the timing
// events and the L2 flush buffer. Returns the cuBLAS handle (cublasDestroy).
// Exit status when no usable GPU is there (no driver, a driver older than
// the runtime, no device): the benchmark has nothing to measure.
constexpr int EXIT_NO_GPU = 3;

static cublasHandle_t setup_device(const Args &a, GpuInfo *gi) {
    int n_dev = 0;
    const cudaError_t e = cudaGetDeviceCount(&n_dev);
    if (e != cudaSuccess || n_dev == 0) {
        fprintf(stderr, "mooncake-calib-gpu: no usable CUDA GPU on this machine (%s). The benchmark "
                        "measures a GPU and needs one with its NVIDIA driver; the simulator does not "
                        "(it uses the calibration files in models/calib/).\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found");
        exit(EXIT_NO_GPU);
    }
    CK(cudaSetDevice(0));
    CK(cudaGetDeviceProperties(&gi->prop, 0));
    gi->drv = gi->rt = gi->sm_khz = gi->mem_khz = 0;
    CK(cudaDriverGetVersion(&gi->drv));
    CK(cudaRuntimeGetVersion(&gi->rt));
    CK(cudaDeviceGetAttribute(&gi->sm_khz, cudaDevAttrClockRate, 0));
    CK(cudaDeviceGetAttribute(&gi->mem_khz, cudaDevAttrMemoryClockRate, 0));
    g_sms = gi->prop.multiProcessorCount;
    gi->mem_gb = (double)gi->prop.totalGlobalMem / (double)(1ull << 30);
    printf("GPU 0: %s, %d SMs, %.1f GiB, SM %d MHz, memory %d MHz, driver %d, runtime %d\n",
           gi->prop.name, g_sms, gi->mem_gb, gi->sm_khz / 1000, gi->mem_khz / 1000, gi->drv, gi->rt);
    printf("%s, tp %d: per GPU %d heads, %d kv heads, d_ff %d, d_model %d\n",
           a.model, a.tp, a.s.H, a.s.KVH, a.s.FF, a.s.d);
    cublasHandle_t hb;
    CKB(cublasCreate(&hb));
    CK(cudaEventCreate(&g_ev0));
    CK(cudaEventCreate(&g_ev1));
    const size_t flush_bytes = std::max<size_t>(2 * (size_t)gi->prop.l2CacheSize, 64ull << 20);
    g_flush_n = flush_bytes / sizeof(int4);
    CK(cudaMalloc(&g_flush, flush_bytes));
    CK(cudaMemset(g_flush, 0, flush_bytes));
    CK(cudaMalloc(&g_sink, sizeof(int)));
    return hb;
}

struct Checks { double gemm, pre, dec; };  // max relative errors of the kernels
// Runs the correctness checks into e and prints them; false (reported) when
// one exceeds TOL.
static bool run_checks(cublasHandle_t hb, Checks *e) {
    e->gemm = check_gemm(hb), e->pre = check_attn(false), e->dec = check_attn(true);
    printf("checks, max rel err (tol %.0e): gemm %.2e, prefill attn %.2e, decode attn %.2e\n",
           TOL, e->gemm, e->pre, e->dec);
    if (!(e->gemm <= TOL && e->pre <= TOL && e->dec <= TOL))
        return fprintf(stderr, "correctness check failed\n"), false;
    return true;
}

static const int PREFILL_T[] = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072};
static const int DECODE_B[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
struct GemmTimes { std::vector<int> t; std::vector<double> s; };  // seconds (-1: skipped) per t
static double gemm_at(const GemmTimes &g, int t) {  // -1 when t was not timed or skipped
    for (size_t i = 0; i < g.t.size(); i++) if (g.t[i] == t) return g.s[i];
    return -1.0;
}
// GEMM phase: the layer's GEMMs for every token count the attention rows use
// (the decode batches, then the prefill token counts up to max_t).
static GemmTimes gemm_phase(cublasHandle_t hb, const Shard &s, int max_t) {
    GemmTimes g;
    g.t.assign(DECODE_B, DECODE_B + 9);
    for (int t : PREFILL_T) if (t <= max_t) g.t.push_back(t);
    for (int t : g.t) {
        g.s.push_back(bench_gemm(hb, s, t));
        if (g.s.back() < 0) printf("gemm t=%d: skipped (does not fit in memory)\n", t);
        else printf("gemm         t=%-6d        %10.3f ms\n", t, g.s.back() * 1e3);
    }
    return g;
}

// Prefill attention phase: n new tokens with p = 0 over the token list up to
// max_t, then a few over cached prefixes. Each shape is predicted from the last
// one's time per unit of causal work and skipped (not recorded) when one run
// would exceed ATTN_MAX_RUN_S. A row's n_tok counts the prefix too; rows need
// the GEMM time of their n.
static std::vector<Row> prefill_phase(const Shard &s, int max_t, const GemmTimes &g) {
    std::vector<Row> pre;
    std::vector<std::pair<int, int>> pts;
    for (int t : PREFILL_T) if (t <= max_t) pts.push_back({t, 0});
    for (int n : {512, 2048}) for (int p : {8192, 32768}) pts.push_back({n, p});
    double s_per_work = 0.0;
    for (const auto &pt : pts) {
        const int n = pt.first, p = pt.second;
        const double work = (double)s.H * n * (p + (n + 1) / 2.0);
        const double a = s_per_work * work > ATTN_MAX_RUN_S ? -2.0 : bench_prefill_attn(s, n, p);
        if (a < 0) {
            printf("prefill attn n=%d p=%d: skipped (%s)\n", n, p, a < -1.5 ? "too long" : "memory");
            continue;
        }
        s_per_work = a / work;
        printf("prefill attn n=%-6d p=%-6d %10.3f ms\n", n, p, a * 1e3);
        if (gemm_at(g, n) >= 0) pre.push_back({n + p, p, gemm_at(g, n), a});
    }
    return pre;
}

// Decode attention phase: B requests x ctx tokens each, B x ctx capped at
// DEC_MAX_TOK (QUICK_DEC_MAX_TOK when quick); rows need the GEMM time of B.
static std::vector<Row> decode_phase(const Shard &s, bool quick, const GemmTimes &g) {
    std::vector<Row> dec;
    const long long dec_max = quick ? QUICK_DEC_MAX_TOK : DEC_MAX_TOK;
    for (int B : DECODE_B) {
        for (int ctx : {1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}) {
            if ((long long)B * ctx > dec_max) continue;
            const double a = bench_decode_attn(s, B, ctx);
            if (a < 0) { printf("decode attn B=%d ctx=%d: skipped (memory)\n", B, ctx); continue; }
            printf("decode attn  B=%-6d ctx=%-6d %8.3f ms\n", B, ctx, a * 1e3);
            if (gemm_at(g, B) >= 0) dec.push_back({B, ctx, gemm_at(g, B), a});
        }
    }
    return dec;
}

// Copy phase: pinned host <-> device copies, 1 MiB .. 1 GiB in powers of 4
// (the largest that fits in device memory).
static std::vector<CopyRow> copy_phase() {
    std::vector<CopyRow> cps;
    size_t max_b = 1ull << 30;
    while (max_b > (1u << 20) && !fits(max_b)) max_b >>= 2;
    void *hbuf = nullptr, *dbuf = nullptr;
    CK(cudaMallocHost(&hbuf, max_b));
    CK(cudaMalloc(&dbuf, max_b));
    memset(hbuf, 1, max_b);
    for (size_t b = 1u << 20; b <= max_b; b <<= 2) {
        auto copy = [&](void *dst, const void *src, cudaMemcpyKind kind) {
            return time_median([&] { CK(cudaMemcpyAsync(dst, src, b, kind)); }, false);
        };
        const double h2d = copy(dbuf, hbuf, cudaMemcpyHostToDevice);
        const double d2h = copy(hbuf, dbuf, cudaMemcpyDeviceToHost);
        cps.push_back({b, h2d, d2h});
        printf("copy %5zu MiB: h2d %6.2f GB/s, d2h %6.2f GB/s\n", b >> 20, b / h2d / 1e9, b / d2h / 1e9);
    }
    CK(cudaFreeHost(hbuf));
    CK(cudaFree(dbuf));
    return cps;
}

struct Results { std::vector<Row> pre, dec; std::vector<CopyRow> cps; Checks e; };
// Writes the calibration JSON to OUT.tmp, syncs it and renames it to OUT, so
// OUT is never partial. Returns the exit status: 0, or 1 on a write failure
// (reported).
static int write_json(const Args &a, const GpuInfo &gi, const Results &r) {
    char date[16];
    const time_t now = time(nullptr);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%d", &tmv);
    const std::string tmp = std::string(a.out_path) + ".tmp";
    const std::string src = std::string("calib/gpu microbenchmarks on ") + gi.prop.name;
    FILE *f = fopen(tmp.c_str(), "w");
    if (!f) return perror(tmp.c_str()), 1;
    fprintf(f, "{\n  \"kind\": \"gpu\",\n  \"source\": %s,\n  \"date\": \"%s\",\n  \"hardware\": %s,\n"
               "  \"models\": [%s],\n  \"gpu\": {\"name\": %s, \"driver\": %d, \"runtime\": %d, "
               "\"sm_clock_mhz\": %d, \"mem_clock_mhz\": %d, \"memory_gb\": %.1f, \"count_used\": 1},\n"
               "  \"model\": %s, \"tp\": %d, \"layers\": %d,\n",
            js(src.c_str()).c_str(), date, js(a.hw).c_str(), js(a.model).c_str(), js(gi.prop.name).c_str(),
            gi.drv, gi.rt, gi.sm_khz / 1000, gi.mem_khz / 1000, gi.mem_gb, js(a.model).c_str(), a.tp,
            a.s.layers);
    json_rows(f, "prefill_layer", "n_tok", "prefix_tok", r.pre);
    json_rows(f, "decode_layer", "batch", "ctx_tok", r.dec);
    fprintf(f, "  \"copies\": [");
    for (size_t i = 0; i < r.cps.size(); i++)
        fprintf(f, "%s\n    {\"bytes\": %zu, \"h2d_s\": %.6g, \"d2h_s\": %.6g}",
                i ? "," : "", r.cps[i].bytes, r.cps[i].h2d, r.cps[i].d2h);
    fprintf(f, "\n  ],\n  \"checks\": {\"gemm_max_rel_err\": %.3g, \"prefill_attn_max_rel_err\": %.3g, "
               "\"decode_attn_max_rel_err\": %.3g}\n}\n", r.e.gemm, r.e.pre, r.e.dec);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0 || ferror(f)) return perror(tmp.c_str()), fclose(f), 1;
    if (fclose(f) != 0 || rename(tmp.c_str(), a.out_path) != 0) return perror(a.out_path), 1;
    printf("wrote %s: %zu prefill rows, %zu decode rows, %zu copy rows\n", a.out_path, r.pre.size(),
           r.dec.size(), r.cps.size());
    return 0;
}

int main(int argc, char **argv) {
    Args a = {};
    const int st = parse_args(argc, argv, &a);
    if (st >= 0) return st;
    setvbuf(stdout, nullptr, _IOLBF, 0);  // a run killed by a time limit still logs its progress
    const double t_start = now_s();
    GpuInfo gi = {};
    cublasHandle_t hb = setup_device(a, &gi);
    Results r;
    const double t_init = now_s();
    if (!run_checks(hb, &r.e)) return 1;  // correctness first
    const double t_chk = now_s();
    const int max_t = a.quick ? 8192 : 131072;  // the largest prefill token count
    const GemmTimes g = gemm_phase(hb, a.s, max_t);
    const double t_gemm = now_s();
    r.pre = prefill_phase(a.s, max_t, g);
    const double t_pre = now_s();
    r.dec = decode_phase(a.s, a.quick, g);
    CK(cudaFree(g_flush));
    const double t_dec = now_s();
    r.cps = copy_phase();
    CK(cudaFree(g_sink));
    CKB(cublasDestroy(hb));
    const double t_end = now_s();
    printf("wall time: init %.1f s, checks %.1f s, gemm %.1f s, prefill %.1f s, decode %.1f s, "
           "copies %.1f s; total %.1f s\n", t_init - t_start, t_chk - t_init, t_gemm - t_chk,
           t_pre - t_gemm, t_dec - t_pre, t_end - t_dec, t_end - t_start);
    return write_json(a, gi, r);
}
