//===- CachedCompile.cpp - Compiling through the kernel cache ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/CachedCompile.h"

#include "Boo/Codegen/CPU/Pipelines.h"
#include "Boo/Dialect/Boo/TransformOps/TuningSpec.h"
#include "boo/ModuleFormat.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <dlfcn.h>

using namespace mlir;
using namespace mlir::boo;

const std::string &harness::getCompilerIdentity() {
  static const std::string identity = [] {
    // The file that holds this code: the tool's executable, which links the
    // Boo libraries statically, or the Python extension (boo/_boo*.so)
    // inside a Python interpreter.
    std::string path;
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&getCompilerIdentity), &info) &&
        info.dli_fname && *info.dli_fname)
      path = info.dli_fname;
    if (path.empty() || !llvm::sys::fs::exists(path))
      path = llvm::sys::fs::getMainExecutable(
          nullptr, reinterpret_cast<void *>(&getCompilerIdentity));
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    // Without the executable's bytes, no key can be trusted across builds:
    // a per-process identity makes every lookup miss.
    if (!buffer)
      return "unreadable-executable-" +
             std::to_string(llvm::sys::Process::getProcessId()) + "-" +
             std::to_string(
                 std::chrono::system_clock::now().time_since_epoch().count());
    return llvm::toHex(
        llvm::BLAKE3::hash(llvm::arrayRefFromStringRef((*buffer)->getBuffer())),
        /*LowerCase=*/true);
  }();
  return identity;
}

bool harness::computeArtifactCacheKey(ModuleOp module,
                                      const ArtifactOptions &options,
                                      std::string &key, std::string &error) {
  std::string spec;
  if (!getTuningSpecIdentity(options.tuningSpec, spec, error))
    return false;
  KernelCacheKey builder;
  builder.add("module-format",
              std::to_string(::boo::runtime::kModuleFormatVersion));
  builder.add("llvm", LLVM_VERSION_STRING);
  builder.add("compiler", getCompilerIdentity());
  builder.add("targets", llvm::join(options.targets, ","));
  std::string cpuOptions;
  {
    llvm::raw_string_ostream os(cpuOptions);
    options.cpu.print(os);
  }
  builder.add("cpu-options", cpuOptions);
  // The cpu target's options left at 0 take the host's values, and the
  // cpu and emulator targets are compiled for the host's CPU: a cache
  // shared between hosts keeps their kernels apart.
  if (llvm::any_of(options.targets, [](const std::string &target) {
        return target == "cpu" || StringRef(target).starts_with("emu:");
      }))
    builder.add("cpu-host",
                llvm::formatv("{0} registers={1} l1={2} l2={3} llc={4}",
                              llvm::sys::getHostCPUName(),
                              getHostVectorRegisterLanes(),
                              getHostL1DataCacheBytes(), getHostL2CacheBytes(),
                              getHostLastLevelCacheBytes())
                    .str());
  builder.add("cpu-loop-unrolling", options.cpuLoopUnrolling ? "1" : "0");
  builder.add("gpu-opt-level", std::to_string(options.gpuOptLevel));
  builder.add("emu-checks", options.emuChecks ? "1" : "0");
  builder.add("emu-plant-bug", options.emuPlantBug);
  builder.add("producer", options.producer);
  builder.add("tuning-spec", spec);
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(
                          /*enable=*/false));
  }
  builder.add("module", text);
  key = builder.str();
  return true;
}

const char *harness::getCacheOutcomeName(CacheOutcome outcome) {
  switch (outcome) {
  case CacheOutcome::Disabled:
    return "off";
  case CacheOutcome::Hit:
    return "hit";
  case CacheOutcome::Miss:
    return "miss";
  case CacheOutcome::Corrupt:
    return "corrupt";
  }
  return "?";
}

bool harness::compileCached(ModuleOp module, const ArtifactOptions &options,
                            KernelCache *cache, CompileResult &result,
                            std::string &error) {
  auto start = std::chrono::steady_clock::now();
  auto finish = [&] {
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return true;
  };
  result = CompileResult();
  std::string key;
  bool useCache = cache && cache->getOptions().enabled;
  if (useCache) {
    if (!computeArtifactCacheKey(module, options, key, error))
      return false;
    std::string note;
    switch (cache->lookup(key, result.bytes, note)) {
    case KernelCache::LookupStatus::Hit:
      result.outcome = CacheOutcome::Hit;
      return finish();
    case KernelCache::LookupStatus::Corrupt:
      result.outcome = CacheOutcome::Corrupt;
      result.cacheNote = "corrupt cache entry evicted: " + note;
      break;
    case KernelCache::LookupStatus::Miss:
      result.outcome = CacheOutcome::Miss;
      if (!note.empty())
        result.cacheNote = "cache lookup failed: " + note;
      break;
    }
  }
  if (!compileModuleArtifact(module, options, result.bytes, error))
    return false;
  if (useCache) {
    std::string note;
    if (!cache->store(key, result.bytes, note))
      result.cacheNote += (result.cacheNote.empty() ? "" : "; ") +
                          std::string("cache store failed: ") + note;
  }
  return finish();
}
