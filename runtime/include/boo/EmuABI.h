//===- EmuABI.h - The SIMT emulator's kernel ABI ----------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The contract between kernels compiled by `boo-to-emu` (the GPU kernels of
// boo-to-rocdl, lowered to host code by boo-emu-lower-kernels) and the
// runtime's emulator device (runtime/src/emu/Emu*.cpp). Header-only and free of
// LLVM/MLIR, like ModuleFormat.h: the compiler and the runtime share it.
//
// An emulator code object is an ELF shared object for the host. Each kernel
// is a function
//
//   void <kernel>(boo::emu::Context *ctx, void **args);   // KernelFn
//
// that ONE work-item runs. `args[i]` is the address of kernel argument i's
// value, as in hipModuleLaunchKernel: for a buffer the address of a `void *`
// holding the buffer's address, for a 64-/32-bit immediate the address of
// an int64_t/int32_t. The runtime runs the function once per work-item,
// each on its own fiber, and switches fibers where the kernel calls back
// (barriers and wave-collective operations). Everything a work-item needs
// from the "hardware" is in its context: ids, the workgroup's LDS, and
// callbacks. The kernel code references no runtime symbol.
//
// The compiler addresses the context as an array of 8-byte slots
// (boo-emu-lower-kernels); the static_asserts below pin the slots.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_EMUABI_H
#define BOO_EMUABI_H

#include <cstddef>
#include <cstdint>

namespace boo {
namespace emu {

/// Buffer codes of `reportOutOfBounds`: kernel argument n is n; the
/// workgroup's LDS buffers (in declaration order) start at
/// kLdsBufferBase; private (per-work-item) arrays are kPrivateBuffer.
inline constexpr int32_t kLdsBufferBase = 1000;
inline constexpr int32_t kPrivateBuffer = 2000;
inline constexpr int32_t kUnknownBuffer = -1;

/// `gpu.shuffle` modes (the values of MLIR's gpu::ShuffleMode).
enum ShuffleMode : int32_t {
  kShuffleXor = 0,
  kShuffleDown = 1,
  kShuffleUp = 2,
  kShuffleIdx = 3,
};

/// Matrix instruction families.
enum MmaFamily : int32_t {
  kMfma = 0, // CDNA amdgpu.mfma (wave64)
  kWmma = 1, // RDNA amdgpu.wmma (wave32)
};

/// Input element types of an MMA (boo_dtype_t values).
enum MmaInputType : int32_t {
  kMmaF16 = 1,
  kMmaBF16 = 2,
};

struct Context;

/// One work-item's view of the device.
struct Context {
  int64_t threadId[3];  // slot 0
  int64_t blockId[3];   // slot 3
  int64_t blockDim[3];  // slot 6
  int64_t gridDim[3];   // slot 9
  /// The workgroup's LDS: as many bytes as the launch's LDS size (the
  /// manifest's dynamic_lds_bytes, the kernel's total LDS), 64-byte
  /// aligned, every byte 0xFF when the workgroup starts.
  void *lds;            // slot 12
  /// The runtime's own per-work-item state; kernels do not touch it.
  void *state;          // slot 13
  /// gpu.barrier: returns when every work-item of the workgroup that has
  /// not returned has called it. `barrierId` numbers the kernel's barrier
  /// call sites: work-items waiting at different ids is a divergence error.
  void (*barrier)(Context *ctx, int32_t barrierId); // slot 14
  /// A load (isStore 0) or store (1) outside its buffer: `buffer` (codes
  /// above), the linear element index and the buffer's element count (-1:
  /// unknown), and the first failing dimension (-1: only the linear index
  /// is out) with its index and size. The access is skipped (loads read 0).
  void (*reportOutOfBounds)(Context *ctx, int32_t isStore, int32_t buffer,
                            int64_t element, int64_t elements, int32_t dim,
                            int64_t dimIndex, int64_t dimSize); // slot 15
  /// An in-bounds LDS access of `bytes` bytes at `byteOffset` in the
  /// workgroup's LDS, for race detection (the runtime checks the bounds
  /// again) and the profile: a load is reported before it happens, a store
  /// right after (so that a store of the value already written can be told
  /// apart). `site` numbers the kernel's memory accesses in program order
  /// (one number per load or store operation), so that the profile can
  /// group the lanes of one wave instruction.
  void (*ldsAccess)(Context *ctx, int32_t site, int32_t isStore,
                    int64_t byteOffset, int64_t bytes); // slot 16
  /// gpu.shuffle of a 32-bit value across the wave (`mode` a ShuffleMode):
  /// returns the shuffled value in the low 32 bits and `valid` in bit 32.
  /// Returns when every lane of the wave that has not returned has called
  /// it.
  int64_t (*shuffle)(Context *ctx, int32_t mode, int32_t value,
                     int32_t offset, int32_t width); // slot 17
  /// amdgpu.mfma / amdgpu.wmma with f32 accumulation (`family` an
  /// MmaFamily, `inputType` an MmaInputType): this lane's A and B fragments
  /// (`aItems` 16-bit elements each, f16 or bf16 bits), its C fragment
  /// (`cItems` floats); writes its D fragment (`cItems` floats; `d` may be
  /// `c`). `m`, `n`, `k` is the instruction shape (blocks 1, no broadcast
  /// controls). Lane-collective: the whole wave must call it.
  void (*mma)(Context *ctx, int32_t family, int32_t m, int32_t n, int32_t k,
              int32_t inputType, int32_t aItems, int32_t cItems,
              const uint16_t *a, const uint16_t *b, const float *c,
              float *d); // slot 18
  /// An in-bounds access of kernel argument `buffer`: `bytes` bytes at
  /// `byteOffset` from the buffer's start, at access site `site` (as for
  /// ldsAccess). Only the profile uses it (docs/Emulator.md, "Profile"):
  /// null when the launch is not profiled, and the kernel skips the call.
  void (*globalAccess)(Context *ctx, int32_t site, int32_t isStore,
                       int32_t buffer, int64_t byteOffset,
                       int64_t bytes); // slot 19
};

/// A kernel entry point.
using KernelFn = void (*)(Context *ctx, void **args);

/// Slot indices (8 bytes each) the compiler uses.
enum ContextSlot : int64_t {
  kSlotThreadId = 0,
  kSlotBlockId = 3,
  kSlotBlockDim = 6,
  kSlotGridDim = 9,
  kSlotLds = 12,
  kSlotState = 13,
  kSlotBarrier = 14,
  kSlotReportOutOfBounds = 15,
  kSlotLdsAccess = 16,
  kSlotShuffle = 17,
  kSlotMma = 18,
  kSlotGlobalAccess = 19,
};

static_assert(offsetof(Context, threadId) == kSlotThreadId * 8, "slot");
static_assert(offsetof(Context, blockId) == kSlotBlockId * 8, "slot");
static_assert(offsetof(Context, blockDim) == kSlotBlockDim * 8, "slot");
static_assert(offsetof(Context, gridDim) == kSlotGridDim * 8, "slot");
static_assert(offsetof(Context, lds) == kSlotLds * 8, "slot");
static_assert(offsetof(Context, state) == kSlotState * 8, "slot");
static_assert(offsetof(Context, barrier) == kSlotBarrier * 8, "slot");
static_assert(offsetof(Context, reportOutOfBounds) ==
                  kSlotReportOutOfBounds * 8,
              "slot");
static_assert(offsetof(Context, ldsAccess) == kSlotLdsAccess * 8, "slot");
static_assert(offsetof(Context, shuffle) == kSlotShuffle * 8, "slot");
static_assert(offsetof(Context, mma) == kSlotMma * 8, "slot");
static_assert(offsetof(Context, globalAccess) == kSlotGlobalAccess * 8, "slot");

} // namespace emu
} // namespace boo

#endif // BOO_EMUABI_H
