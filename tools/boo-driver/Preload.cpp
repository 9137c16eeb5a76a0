//===- Preload.cpp - boo-driver --preload ----------------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Preload.h"
#include "Report.h"

#include "Boo/Artifact/ModuleArtifact.h"
#include "Boo/Harness/CachedCompile.h"
#include "Boo/Import/MIOpenImport.h"
#include "Boo/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <mutex>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::harness;
namespace harness = mlir::boo::harness;

namespace {

struct Task {
  const harness::CommandLine *command = nullptr;
  std::string target;
  // Results.
  bool ok = false;
  harness::CacheOutcome outcome = harness::CacheOutcome::Disabled;
  std::string error, note;
  double seconds = 0;
};

void compileTask(Task &task, const DialectRegistry &registry,
                 const PreloadOptions &options, KernelCache &cache) {
  // One context per compilation: contexts are not shared across threads
  // here, and each runs single-threaded (the pool is the parallelism).
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  FailureOr<OwningOpRef<ModuleOp>> module =
      importMIOpenCommand(&ctx, task.command->command, task.error);
  if (failed(module))
    return;
  ArtifactOptions artifactOptions;
  artifactOptions.targets = {task.target};
  artifactOptions.tuningSpec = options.tuningSpec;
  artifactOptions.producer = "boo-driver";
  harness::CompileResult result;
  if (!harness::compileCached(**module, artifactOptions, &cache, result,
                              task.error))
    return;
  task.ok = true;
  task.outcome = result.outcome;
  task.note = result.cacheNote;
  task.seconds = result.seconds;
}

} // namespace

int mlir::boo::harness::runPreload(
    const std::vector<harness::CommandLine> &commands,
    const PreloadOptions &options, KernelCache &cache) {
  if (!cache.getOptions().enabled) {
    llvm::errs() << "boo-driver: error: --preload with the cache off "
                    "(BOO_CACHE_ON=0) would compile for nothing\n";
    return 2;
  }
  std::vector<std::string> known = getArtifactTargetNames();
  for (const std::string &target : options.targets) {
    if (!llvm::is_contained(known, target)) {
      llvm::errs() << "boo-driver: error: --targets: unknown target '" << target
                   << "'; known: " << llvm::join(known, ", ") << "\n";
      return 2;
    }
  }

  std::vector<Task> tasks;
  for (const harness::CommandLine &command : commands)
    for (const std::string &target : options.targets) {
      Task task;
      task.command = &command;
      task.target = target;
      tasks.push_back(std::move(task));
    }

  DialectRegistry registry;
  registerAllDialects(registry);
  llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(options.jobs);
  unsigned threads = strategy.compute_thread_count();
  llvm::outs() << "boo-driver: preloading " << commands.size()
               << " commands x " << options.targets.size() << " targets ("
               << llvm::join(options.targets, ", ") << ") = " << tasks.size()
               << " kernels on " << threads << " threads into "
               << cache.getOptions().directory << "\n";
  llvm::outs().flush();

  std::mutex mutex;
  Progress progress(tasks.size(), "preload", options.progress);
  auto start = std::chrono::steady_clock::now();
  {
    llvm::DefaultThreadPool pool(strategy);
    for (Task &task : tasks)
      pool.async([&] {
        compileTask(task, registry, options, cache);
        std::lock_guard<std::mutex> lock(mutex);
        progress.step(
            (task.ok ? std::string(harness::getCacheOutcomeName(task.outcome)) +
                           " " + task.target
                     : "FAILED " + task.target) +
            ": " + task.command->command);
      });
    pool.wait();
  }
  progress.finish();
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();

  int64_t compiled = 0, cached = 0, failedCount = 0;
  for (const Task &task : tasks) {
    if (!task.ok)
      ++failedCount;
    else if (task.outcome == harness::CacheOutcome::Hit)
      ++cached;
    else
      ++compiled;
  }
  llvm::outs() << llvm::format(
      "boo-driver: preload: %lld compiled, %lld already cached, %lld failed "
      "in %.1f s (%.2f kernels/s compiled)\n",
      (long long)compiled, (long long)cached, (long long)failedCount, seconds,
      seconds > 0 ? compiled / seconds : 0.0);
  std::string failures;
  for (const Task &task : tasks) {
    if (!task.note.empty())
      llvm::outs() << "  warning: " << task.target << ": "
                   << task.command->command << ": " << task.note << "\n";
    if (task.ok)
      continue;
    std::string line = task.target + " (line " +
                       std::to_string(task.command->lineNumber) + "): " +
                       task.command->command + "\n    " + task.error + "\n";
    llvm::outs() << "  failed: " << line;
    failures += line;
  }
  if (!options.failuresFile.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(options.failuresFile, ec,
                            llvm::sys::fs::OF_Text);
    if (ec) {
      llvm::errs() << "boo-driver: error: cannot write '"
                   << options.failuresFile << "': " << ec.message() << "\n";
      return 2;
    }
    os << failures;
  }
  return failedCount ? 1 : 0;
}
