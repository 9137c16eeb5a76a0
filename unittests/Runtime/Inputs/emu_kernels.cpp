//===- emu_kernels.cpp - Hand-written emulator code object for tests ------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Kernels written by hand against boo/EmuABI.h, built as a host shared
// object, so the runtime tests can run an "emu:<chip>" module without the
// compiler:
//
//   boo_test_emu_add(a, b, c, n)   c[i] = a[i] + b[i] for i < n, with a
//       staged through LDS (one f32 per work-item) across a barrier.
//   boo_test_emu_oob(a, c, n)      c[i] = a[i] for every work-item, reporting
//       (and skipping) the accesses at i >= n as the compiler's guards do.
//
//===----------------------------------------------------------------------===//

#include "boo/EmuABI.h"

using boo::emu::Context;

namespace {
template <typename T> T *bufferArg(void **args, int index) {
  return *static_cast<T **>(args[index]);
}
} // namespace

extern "C" {

void boo_test_emu_add(Context *ctx, void **args) {
  const float *a = bufferArg<const float>(args, 0);
  const float *b = bufferArg<const float>(args, 1);
  float *c = bufferArg<float>(args, 2);
  int32_t n = *static_cast<int32_t *>(args[3]);
  int64_t t = ctx->threadId[0];
  int64_t i = ctx->blockId[0] * ctx->blockDim[0] + t;
  float *staged = static_cast<float *>(ctx->lds);
  ctx->ldsAccess(ctx, /*site=*/0, 1, t * 4, 4);
  staged[t] = i < n ? a[i] : 0.0f;
  ctx->barrier(ctx, 0);
  ctx->ldsAccess(ctx, /*site=*/1, 0, t * 4, 4);
  float value = staged[t];
  if (i < n)
    c[i] = value + b[i];
}

void boo_test_emu_oob(Context *ctx, void **args) {
  const float *a = bufferArg<const float>(args, 0);
  float *c = bufferArg<float>(args, 1);
  int32_t n = *static_cast<int32_t *>(args[2]);
  int64_t i = ctx->blockId[0] * ctx->blockDim[0] + ctx->threadId[0];
  float value = 0.0f;
  if (i < n)
    value = a[i];
  else
    ctx->reportOutOfBounds(ctx, 0, 0, i, n, 0, i, n);
  if (i < n)
    c[i] = value;
  else
    ctx->reportOutOfBounds(ctx, 1, 1, i, n, 0, i, n);
}

} // extern "C"
