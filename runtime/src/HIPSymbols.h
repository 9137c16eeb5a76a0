//===- HIPSymbols.h - The HIP runtime, loaded with dlopen -------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The runtime never links libamdhip64: it loads it at run time and resolves
// the entry points it uses through this explicit table (as IREE's
// dynamic_symbol_tables.h does), so one libboo_runtime.so runs on machines
// with and without ROCm. The HIP headers only provide the types; each
// pointer's type is taken from the header's declaration, so a signature
// mismatch is a compile error.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_HIPSYMBOLS_H
#define BOO_RUNTIME_SRC_HIPSYMBOLS_H

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

#include "boo_runtime.h"

#include <string>

namespace boo {
namespace runtime {

/// hipMalloc has a template overload in C++, so its type is spelled out.
using HIPMallocFunction = hipError_t (*)(void **, size_t);

// X(name, type): every HIP function the runtime calls.
#define BOO_HIP_SYMBOLS(X)                                                     \
  X(hipInit, decltype(&::hipInit))                                             \
  X(hipGetDeviceCount, decltype(&::hipGetDeviceCount))                         \
  /* The unversioned symbol, with the HIP 5 hipDeviceProp_t layout. */         \
  X(hipGetDeviceProperties, decltype(&::hipGetDeviceProperties))               \
  X(hipSetDevice, decltype(&::hipSetDevice))                                   \
  X(hipMalloc, HIPMallocFunction)                                              \
  X(hipFree, decltype(&::hipFree))                                             \
  X(hipMemcpy, decltype(&::hipMemcpy))                                         \
  X(hipStreamCreate, decltype(&::hipStreamCreate))                             \
  X(hipStreamDestroy, decltype(&::hipStreamDestroy))                           \
  X(hipStreamSynchronize, decltype(&::hipStreamSynchronize))                   \
  X(hipModuleLoadData, decltype(&::hipModuleLoadData))                         \
  X(hipModuleUnload, decltype(&::hipModuleUnload))                             \
  X(hipModuleGetFunction, decltype(&::hipModuleGetFunction))                   \
  X(hipModuleLaunchKernel, decltype(&::hipModuleLaunchKernel))                 \
  X(hipEventCreate, decltype(&::hipEventCreate))                               \
  X(hipEventRecord, decltype(&::hipEventRecord))                               \
  X(hipEventSynchronize, decltype(&::hipEventSynchronize))                     \
  X(hipEventElapsedTime, decltype(&::hipEventElapsedTime))                     \
  X(hipEventDestroy, decltype(&::hipEventDestroy))                             \
  X(hipGetErrorName, decltype(&::hipGetErrorName))                             \
  X(hipGetErrorString, decltype(&::hipGetErrorString))

struct HIPSymbols {
  /// The name the library was loaded by ("libamdhip64.so.5", or the
  /// BOO_HIP_LIBRARY path).
  std::string libraryName;
  void *library = nullptr;
#define BOO_HIP_DECLARE_SYMBOL(name, type) type name = nullptr;
  BOO_HIP_SYMBOLS(BOO_HIP_DECLARE_SYMBOL)
#undef BOO_HIP_DECLARE_SYMBOL

  /// "hipErrorNoDevice (no ROCm-capable device is detected)".
  std::string describeError(hipError_t error) const;
};

/// The names in BOO_HIP_SYMBOLS, for tests and messages.
extern const char *const kHIPSymbolNames[];
extern const size_t kHIPSymbolCount;

/// Loads the HIP runtime (BOO_HIP_LIBRARY, else libamdhip64.so, .so.6,
/// .so.5) and resolves every symbol. The library stays loaded for the rest
/// of the process and `symbols` stays valid; a failure is not remembered,
/// so a later call retries. Fails with BOO_STATUS_UNAVAILABLE and a message
/// saying what is missing.
boo_status_t loadHIPSymbols(const HIPSymbols *&symbols);

} // namespace runtime
} // namespace boo

#endif // BOO_RUNTIME_SRC_HIPSYMBOLS_H
