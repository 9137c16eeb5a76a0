/*===- add_kernel.c - A hand-written CPU code object for runtime tests ----===*
 *
 * Part of the Boo project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Implements the CPU code-object ABI of docs/ModuleFormat.md by hand, so
 * the runtime tests can load and run a real shared object without the
 * compiler:
 *
 *   boo_test_add(a, b, c, stats)  c = a + b over 1-D f32 tensors through
 *       __boo_parallel_for; stats (i32[3]) = {chunks run, distinct threads,
 *       1 if every descriptor had offset 0 and unit stride}.
 *   boo_test_describe(x, out)     out (i32[8]) = x's sizes[3], strides[3],
 *       offset, and 1 if allocated == aligned.
 *   boo_test_nested(x, out)       a parallel loop whose body calls
 *       __boo_parallel_for again; out (i32[2]) = {outer chunks, inner calls
 *       that were split rather than run inline}.
 *
 *===----------------------------------------------------------------------===*/

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

typedef void (*BooBody)(void *ctx, int64_t begin, int64_t end);
typedef void (*BooParallelFor)(BooBody body, void *ctx, int64_t n);

/* Set by the runtime after loading; null means run loops inline. */
void *__boo_parallel_for = 0;

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} MemRef1DF32;

typedef struct {
  int32_t *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} MemRef1DI32;

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} MemRef3DF32;

static void parallelFor(BooBody body, void *ctx, int64_t n) {
  BooParallelFor dispatch = (BooParallelFor)__boo_parallel_for;
  if (dispatch)
    dispatch(body, ctx, n);
  else
    body(ctx, 0, n);
}

enum { kMaxChunks = 4096 };

typedef struct {
  const float *a, *b;
  float *c;
  atomic_long chunks;
  pthread_t threads[kMaxChunks];
} AddContext;

static void addChunk(void *opaque, int64_t begin, int64_t end) {
  AddContext *ctx = (AddContext *)opaque;
  long chunk = atomic_fetch_add(&ctx->chunks, 1);
  if (chunk < kMaxChunks)
    ctx->threads[chunk] = pthread_self();
  for (int64_t i = begin; i < end; ++i)
    ctx->c[i] = ctx->a[i] + ctx->b[i];
  /* Slow enough that every thread of the pool gets chunks. */
  struct timespec pause = {0, 2000000};
  nanosleep(&pause, 0);
}

void boo_test_add(void **args) {
  MemRef1DF32 *a = (MemRef1DF32 *)args[0], *b = (MemRef1DF32 *)args[1],
              *c = (MemRef1DF32 *)args[2];
  MemRef1DI32 *stats = (MemRef1DI32 *)args[3];
  static AddContext ctx;
  ctx.a = a->aligned + a->offset;
  ctx.b = b->aligned + b->offset;
  ctx.c = c->aligned + c->offset;
  atomic_store(&ctx.chunks, 0);
  parallelFor(addChunk, &ctx, c->sizes[0]);

  long chunks = atomic_load(&ctx.chunks);
  int32_t distinct = 0;
  for (long i = 0; i < chunks && i < kMaxChunks; ++i) {
    int seen = 0;
    for (long j = 0; j < i && !seen; ++j)
      seen = pthread_equal(ctx.threads[i], ctx.threads[j]);
    distinct += !seen;
  }
  int32_t *out = stats->aligned + stats->offset;
  out[0] = (int32_t)chunks;
  out[1] = distinct;
  out[2] = 1;
  for (int i = 0; i < 3; ++i) {
    MemRef1DF32 *memref = (MemRef1DF32 *)args[i];
    if (memref->offset != 0 || memref->strides[0] != 1 ||
        memref->sizes[0] != c->sizes[0])
      out[2] = 0;
  }
  if (stats->offset != 0 || stats->strides[0] != 1 || stats->sizes[0] != 3)
    out[2] = 0;
}

void boo_test_describe(void **args) {
  MemRef3DF32 *x = (MemRef3DF32 *)args[0];
  MemRef1DI32 *result = (MemRef1DI32 *)args[1];
  int32_t *out = result->aligned;
  for (int i = 0; i < 3; ++i) {
    out[i] = (int32_t)x->sizes[i];
    out[3 + i] = (int32_t)x->strides[i];
  }
  out[6] = (int32_t)x->offset;
  out[7] = x->allocated == x->aligned;
}

typedef struct {
  atomic_long outerChunks, splitInnerCalls;
} NestedContext;

typedef struct {
  NestedContext *parent;
  int64_t expected;
} InnerContext;

static void innerBody(void *opaque, int64_t begin, int64_t end) {
  InnerContext *inner = (InnerContext *)opaque;
  if (begin != 0 || end != inner->expected)
    atomic_fetch_add(&inner->parent->splitInnerCalls, 1);
}

static void outerBody(void *opaque, int64_t begin, int64_t end) {
  NestedContext *ctx = (NestedContext *)opaque;
  atomic_fetch_add(&ctx->outerChunks, 1);
  InnerContext inner = {ctx, 64};
  parallelFor(innerBody, &inner, inner.expected);
  struct timespec pause = {0, 1000000};
  nanosleep(&pause, 0);
}

void boo_test_nested(void **args) {
  MemRef1DF32 *x = (MemRef1DF32 *)args[0];
  MemRef1DI32 *result = (MemRef1DI32 *)args[1];
  NestedContext ctx;
  atomic_store(&ctx.outerChunks, 0);
  atomic_store(&ctx.splitInnerCalls, 0);
  parallelFor(outerBody, &ctx, x->sizes[0]);
  result->aligned[0] = (int32_t)atomic_load(&ctx.outerChunks);
  result->aligned[1] = (int32_t)atomic_load(&ctx.splitInnerCalls);
}
