//===- CachedCompile.h - Compiling through the kernel cache -----*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo-driver's and the Python package's compile step: an MLIR module (an
// imported MIOpenDriver command) to a compiled module (boo/ModuleFormat.h) for
// one set of targets, served from the kernel cache (Boo/Cache/KernelCache.h)
// when it holds the same compilation.
//
// The key covers everything that changes the bytes: the module (printed in
// generic form, locations dropped), the targets, every artifact option (the
// CPU pipeline's options, the GPU optimization level, the emulator's
// checks), the content hash of the tuning spec in use (resolved as the
// pipelines resolve it: an edited spec gives new keys), the module format
// version, LLVM's version, and the compiler itself (a BLAKE3 of the file
// that links every Boo library statically: the tool's executable, or the
// Python extension).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_HARNESS_CACHEDCOMPILE_H
#define BOO_HARNESS_CACHEDCOMPILE_H

#include "Boo/Artifact/ModuleArtifact.h"
#include "Boo/Cache/KernelCache.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::boo::harness {

/// BLAKE3 of the file that holds the compiler: the running tool, or the
/// Python extension that links it; computed once per process.
const std::string &getCompilerIdentity();

/// The cache key of compiling `module` with `options`; false, with
/// `error`, if the tuning spec cannot be read.
bool computeArtifactCacheKey(ModuleOp module, const ArtifactOptions &options,
                             std::string &key, std::string &error);

enum class CacheOutcome {
  Disabled, // no cache: compiled
  Hit,      // served from the cache
  Miss,     // compiled and stored
  Corrupt,  // the entry failed its checks: evicted, compiled and stored
};
const char *getCacheOutcomeName(CacheOutcome outcome);

struct CompileResult {
  std::string bytes;
  CacheOutcome outcome = CacheOutcome::Disabled;
  /// Why a lookup or store did not go as planned (a corrupt entry, an I/O
  /// error); the compilation itself succeeded.
  std::string cacheNote;
  double seconds = 0.0;
};

/// Compiles `module` (which it may modify) with `options` through `cache`
/// (null: no cache). False, with `error`, if the compilation fails.
bool compileCached(ModuleOp module, const ArtifactOptions &options,
                   KernelCache *cache, CompileResult &result,
                   std::string &error);

} // namespace mlir::boo::harness

#endif // BOO_HARNESS_CACHEDCOMPILE_H
