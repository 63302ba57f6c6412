// kernel_trace: a CUDA injection library (CUPTI activity records) that writes the start
// and end of every kernel, memory copy and memset a program runs, those of CUDA graphs
// included (each node its own record), to a CSV file: the GPU time of each kernel and the gaps
// between them, where BLAST_GPU_PROFILE (which times the host loop) cannot see inside the momentum
// solve's graph.
//
//   cmake --build build --target kernel_trace        (built where the toolkit has CUPTI)
//   CUDA_INJECTION64_PATH=$PWD/build/bench/libkernel_trace.so KERNEL_TRACE_OUT=trace.csv \
//       build/app/blast_gpu deck.ini ...
//   python3 bench/gpu/kernel_trace.py trace.csv
//
// Columns: start_ns, end_ns, graph (0: launched from the host), graph node, grid, block, name
// (copies: "[memcpy HtoD]" and so on, with the bytes as grid and 0 as block; "[memset]").
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *g_out;

enum { kBufBytes = 8 << 20 };

static void CUPTIAPI BufferRequested(uint8_t **buf, size_t *size, size_t *max_records) {
  *buf = aligned_alloc(8, kBufBytes);
  *size = *buf ? kBufBytes : 0;
  *max_records = 0;
}

static void CUPTIAPI BufferCompleted(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
                                     size_t valid) {
  (void)ctx, (void)stream, (void)size;
  CUpti_Activity *rec = NULL;
  static const char *const kCopy[] = {"?",    "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                      "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
    if (!g_out) continue;
    if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
      fprintf(g_out, "%llu,%llu,%u,%llu,%llu,0,[memcpy %s]\n", (unsigned long long)m->start,
              (unsigned long long)m->end, m->graphId, (unsigned long long)m->graphNodeId,
              (unsigned long long)m->bytes, m->copyKind < 11 ? kCopy[m->copyKind] : "?");
      continue;
    }
    if (rec->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
      fprintf(g_out, "%llu,%llu,%u,%llu,%llu,0,[memset]\n", (unsigned long long)m->start,
              (unsigned long long)m->end, m->graphId, (unsigned long long)m->graphNodeId,
              (unsigned long long)m->bytes);
      continue;
    }
    if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
        rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
    fprintf(g_out, "%llu,%llu,%u,%llu,%d,%d,%s\n", (unsigned long long)k->start,
            (unsigned long long)k->end, k->graphId, (unsigned long long)k->graphNodeId,
            k->gridX * k->gridY * k->gridZ, k->blockX * k->blockY * k->blockZ,
            k->name ? k->name : "?");
  }
  free(buf);
}

static void Finish(void) {
  cuptiActivityFlushAll(1);
  if (g_out) fclose(g_out);
  g_out = NULL;
}

// Called by the CUDA driver when CUDA_INJECTION64_PATH names this library.
int InitializeInjection(void) {
  const char *path = getenv("KERNEL_TRACE_OUT");
  g_out = fopen(path ? path : "kernel_trace.csv", "w");
  if (!g_out) {
    perror("kernel_trace: the output file");
    return 0;
  }
  fprintf(g_out, "start_ns,end_ns,graph,node,grid,block,name\n");
  CUptiResult r = cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted);
  if (r == CUPTI_SUCCESS) r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r == CUPTI_SUCCESS) r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  if (r == CUPTI_SUCCESS) r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  if (r != CUPTI_SUCCESS) {
    const char *m = NULL;
    cuptiGetResultString(r, &m);
    fprintf(stderr, "kernel_trace: CUPTI: %s\n", m);
    return 0;
  }
  atexit(Finish);
  return 1;
}
