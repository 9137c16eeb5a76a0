//===- BooAttrs.cpp - Boo attributes --------------------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// #boo.target and #boo.lowering_config: parsing helpers, the chip-free
// verifier of a config, and the checks of a config against its kernel (its
// loop nest, KernelLoopNest.cpp) and chip.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Dialect/Boo/IR/BooDialect.h"
#include "Boo/Dialect/Boo/IR/BooOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h" // BooAttrs.cpp.inc

using namespace mlir;
using namespace mlir::boo;

#define GET_ATTRDEF_CLASSES
#include "Boo/Dialect/Boo/IR/BooAttrs.cpp.inc"

void BooDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Boo/Dialect/Boo/IR/BooAttrs.cpp.inc"
      >();
}

FailureOr<SmallVector<int64_t>> mlir::boo::parseI64List(AsmParser &parser) {
  SmallVector<int64_t> values;
  if (failed(parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                            [&]() -> ParseResult {
                                              int64_t v;
                                              if (parser.parseInteger(v))
                                                return failure();
                                              values.push_back(v);
                                              return success();
                                            })))
    return failure();
  return values;
}

void mlir::boo::printI64List(AsmPrinter &printer, ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef chip) {
  if (!lookupChip(chip))
    return emitError() << getUnsupportedChipMessage(chip);
  return success();
}

const ChipInfo &TargetAttr::getChipInfo() const {
  return *lookupChip(getChip());
}

//===----------------------------------------------------------------------===//
// LoweringConfigAttr: checks that need neither the kernel nor the chip
//===----------------------------------------------------------------------===//

int64_t LoweringConfigAttr::getLevelTile(int64_t i) const {
  if (int64_t wg = getWorkgroup()[i])
    return wg;
  ArrayRef<int64_t> red = getReduction();
  return red.empty() ? 0 : red[i];
}

int64_t LoweringConfigAttr::getNumThreads() const {
  int64_t n = 1;
  for (int64_t s : getWorkgroupSize())
    n *= s;
  return n;
}

namespace {
/// Checks one distribution level (thread or subgroup tiles) and returns the
/// number of threads or subgroups it makes, or failure.
FailureOr<int64_t> checkDistribution(function_ref<InFlightDiagnostic()> err,
                                     StringRef level, ArrayRef<int64_t> tiles,
                                     ArrayRef<int64_t> workgroup,
                                     ArrayRef<int64_t> reduction) {
  int64_t count = 1;
  for (auto [i, t] : llvm::enumerate(tiles)) {
    if (t == 0)
      continue;
    bool isRed = workgroup[i] == 0 && !reduction.empty() && reduction[i] != 0;
    int64_t outer = isRed ? reduction[i] : workgroup[i];
    if (outer == 0)
      return err() << level << " tile " << t << " of loop " << i
                   << " needs a non-zero workgroup or reduction tile to "
                      "divide";
    if (outer % t != 0)
      return err() << level << " tile " << t << " of loop " << i
                   << " does not divide its "
                   << (isRed ? "reduction" : "workgroup") << " tile " << outer;
    count *= outer / t;
  }
  return count;
}
} // namespace

LogicalResult
StridePhasesAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> inputLoops,
                         ArrayRef<int64_t> tapLoops, ArrayRef<int64_t> strides,
                         ArrayRef<int64_t> dilations,
                         ArrayRef<int64_t> offsets) {
  size_t n = inputLoops.size();
  if (tapLoops.size() != n || strides.size() != n || dilations.size() != n ||
      offsets.size() != n)
    return emitError() << "input_loops, tap_loops, strides, dilations and "
                          "offsets must have one entry each per spatial dim";
  llvm::SmallDenseSet<int64_t> loops;
  for (size_t j = 0; j < n; ++j) {
    if (strides[j] < 1 || dilations[j] < 1)
      return emitError() << "entry " << j
                         << ": strides and dilations must be >= 1";
    for (int64_t loop : {inputLoops[j], tapLoops[j]})
      if (loop < 0 || !loops.insert(loop).second)
        return emitError() << "entry " << j << ": loop " << loop
                           << " is negative or named twice";
  }
  return success();
}

LogicalResult LoweringConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> workgroup,
    ArrayRef<int64_t> reduction, ArrayRef<int64_t> thread,
    ArrayRef<int64_t> subgroup, ArrayRef<int64_t> workgroupSize,
    int64_t subgroupSize, StringRef mma, ArrayRef<int64_t> mmaLoops,
    ArrayRef<int64_t> promoteOperands, int64_t pipelineDepth, int64_t splitK) {
  size_t numLoops = workgroup.size();
  // Every tile list has one entry per loop, none negative.
  const std::pair<StringRef, ArrayRef<int64_t>> lists[] = {
      {"workgroup", workgroup},
      {"reduction", reduction},
      {"thread", thread},
      {"subgroup", subgroup}};
  for (auto [name, tiles] : lists) {
    if (name != "workgroup" && !tiles.empty() && tiles.size() != numLoops)
      return emitError() << "'" << name << "' has " << tiles.size()
                         << " tile sizes, but 'workgroup' has " << numLoops
                         << " (one per loop of the root linalg.generic)";
    for (auto [i, t] : llvm::enumerate(tiles))
      if (t < 0)
        return emitError() << "'" << name
                           << "' tile sizes must be non-negative, got " << t
                           << " for loop " << i;
  }
  if (!reduction.empty())
    for (size_t i = 0; i < numLoops; ++i)
      if (workgroup[i] != 0 && reduction[i] != 0)
        return emitError() << "loop " << i << " has both a workgroup tile ("
                           << workgroup[i] << ") and a reduction tile ("
                           << reduction[i]
                           << "); a loop is either parallel or a reduction";

  if (subgroupSize != 32 && subgroupSize != 64)
    return emitError() << "subgroup_size must be 32 or 64, got "
                       << subgroupSize;
  if (workgroupSize.size() != 3 ||
      llvm::any_of(workgroupSize, [](int64_t s) { return s < 1; }))
    return emitError()
           << "'workgroup_size' must be [x, y, z] with every entry >= 1";
  int64_t threads = workgroupSize[0] * workgroupSize[1] * workgroupSize[2];
  if (threads > 1024)
    return emitError() << "workgroup_size " << workgroupSize[0] << "x"
                       << workgroupSize[1] << "x" << workgroupSize[2] << " has "
                       << threads
                       << " threads; no target allows more than 1024";
  if (threads % subgroupSize != 0)
    return emitError() << "workgroup_size " << workgroupSize[0] << "x"
                       << workgroupSize[1] << "x" << workgroupSize[2] << " ("
                       << threads
                       << " threads) is not a multiple of subgroup_size "
                       << subgroupSize;

  // Distribution: threads (FMA) or subgroups (MMA).
  if (!mma.empty()) {
    if (subgroup.empty() || !thread.empty())
      return emitError() << "an MMA config distributes subgroups: it needs "
                            "'subgroup' tile sizes and no 'thread' tile sizes";
  } else if (!subgroup.empty() || (thread.empty() && numLoops != 0)) {
    return emitError() << "an FMA config (no 'mma') distributes threads: it "
                          "needs 'thread' tile sizes and no 'subgroup' tile "
                          "sizes";
  }
  if (!mma.empty()) {
    FailureOr<int64_t> subgroups = checkDistribution(
        emitError, "subgroup", subgroup, workgroup, reduction);
    if (failed(subgroups))
      return failure();
    if (*subgroups * subgroupSize != threads)
      return emitError() << "the subgroup tiles make " << *subgroups
                         << " subgroups of " << subgroupSize
                         << " threads, but workgroup_size has " << threads
                         << " threads";
  } else if (numLoops != 0) {
    FailureOr<int64_t> count =
        checkDistribution(emitError, "thread", thread, workgroup, reduction);
    if (failed(count))
      return failure();
    // A kernel with nothing to distribute (only reductions: a layer norm of
    // one row) runs on one wave; lanes past the first idle.
    bool oneWave = *count == 1 && threads == subgroupSize;
    if (*count != threads && !oneWave)
      return emitError() << "the thread tiles make " << *count
                         << " threads (workgroup or reduction tile / thread "
                            "tile, over the distributed loops), but "
                            "workgroup_size has "
                         << threads;
  }

  // MMA shape.
  if (mma.empty() && !mmaLoops.empty())
    return emitError() << "'mma_loops' is only allowed with 'mma'";
  if (!mma.empty()) {
    const MmaIntrinsic *intr = lookupMmaOnAnyChip(mma);
    if (!intr)
      return emitError() << "unknown mma intrinsic '" << mma
                         << "'; known: " << getKnownMmaList();
    if (mmaLoops.size() != 3 || mmaLoops[0] == mmaLoops[1] ||
        mmaLoops[0] == mmaLoops[2] || mmaLoops[1] == mmaLoops[2] ||
        llvm::any_of(mmaLoops, [&](int64_t l) {
          return l < 0 || l >= static_cast<int64_t>(numLoops);
        }))
      return emitError() << "'mma_loops' must name 3 distinct loops [m, n, "
                            "k] in [0, "
                         << numLoops << ")";
    auto requireMultiple = [&](StringRef level, ArrayRef<int64_t> tiles,
                               int64_t loop, StringRef dim,
                               int64_t size) -> LogicalResult {
      int64_t t = tiles.empty() ? 0 : tiles[loop];
      if (t != 0 && t % size == 0)
        return success();
      return emitError() << level << " tile " << t << " of loop " << loop
                         << " (mma " << dim << ") is not a non-zero multiple "
                         << "of " << mma << "'s " << dim << " = " << size;
    };
    if (failed(requireMultiple("workgroup", workgroup, mmaLoops[0], "M",
                               intr->m)) ||
        failed(requireMultiple("workgroup", workgroup, mmaLoops[1], "N",
                               intr->n)) ||
        failed(requireMultiple("reduction", reduction, mmaLoops[2], "K",
                               intr->k)) ||
        failed(
            requireMultiple("subgroup", subgroup, mmaLoops[0], "M", intr->m)) ||
        failed(
            requireMultiple("subgroup", subgroup, mmaLoops[1], "N", intr->n)))
      return failure();
  }

  // LDS staging.
  for (auto [i, p] : llvm::enumerate(promoteOperands))
    if (p < 0 || (i > 0 && p <= promoteOperands[i - 1]))
      return emitError() << "'promote_operands' must be strictly increasing "
                            "non-negative input indices";
  if (pipelineDepth != 1 && pipelineDepth != 2)
    return emitError() << "pipeline_depth must be 1 (single-buffered) or 2 "
                          "(double-buffered), got "
                       << pipelineDepth;
  if (pipelineDepth == 2 && promoteOperands.empty())
    return emitError() << "pipeline_depth 2 double-buffers the LDS copies, "
                          "but 'promote_operands' is empty";
  if (mma.empty() && !promoteOperands.empty())
    return emitError() << "'promote_operands' needs an 'mma': only the MMA "
                          "path stages operands through LDS (FMA kernels "
                          "read them from global memory)";
  if (splitK < 1)
    return emitError() << "split_k must be at least 1, got " << splitK;
  if (splitK > 1 && mma.empty())
    return emitError() << "split_k " << splitK
                       << " needs an 'mma': only the MMA path splits the "
                          "reduction across workgroups";
  return success();
}

//===----------------------------------------------------------------------===//
// Checks against the kernel and the chip
//===----------------------------------------------------------------------===//

namespace {
int64_t elementBytes(Type t) {
  return t.isIntOrFloat() ? std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8)
                          : 4;
}

/// Bytes of one copy of input `operand`'s tile (without pipelining).
int64_t operandTileBytes(const KernelLoopNest &nest, const KernelOperand &in,
                         LoweringConfigAttr config) {
  int64_t elements = 1;
  for (const KernelOperandDim &dim : in.dims) {
    int64_t span = 1;
    for (auto [loop, coeff] : dim.terms) {
      int64_t extent = nest.loops[loop].extent;
      int64_t tile = config.getLevelTile(loop);
      tile = tile == 0 ? extent : std::min(tile, extent);
      span += coeff * (tile - 1);
    }
    elements *= std::min(span, dim.size);
  }
  return elements * elementBytes(in.elementType);
}

std::string loopNames(const KernelLoopNest &nest,
                      function_ref<bool(const KernelLoop &)> pred) {
  SmallVector<StringRef> names;
  for (const KernelLoop &l : nest.loops)
    if (pred(l))
      names.push_back(l.name);
  return names.empty() ? "none" : llvm::join(names, ", ");
}

/// The names of the loops with `role`.
std::string roleLoops(const KernelLoopNest &nest, LoopRole role) {
  return loopNames(nest, [&](const KernelLoop &l) { return l.role == role; });
}

InFlightDiagnostic defaultError(Operation *op) { return op->emitOpError(); }
} // namespace

int64_t mlir::boo::estimateLDSBytes(const KernelLoopNest &nest,
                                    LoweringConfigAttr config) {
  if (config.getNumLoops() != nest.getNumLoops())
    return 0;
  int64_t bytes = 0;
  for (int64_t p : config.getPromoteOperands())
    if (p >= 0 && p < static_cast<int64_t>(nest.inputs.size()))
      bytes += operandTileBytes(nest, nest.inputs[p], config);
  return bytes * config.getPipelineDepth();
}

LogicalResult mlir::boo::verifyLoweringConfigForKernel(
    ConfigErrorFn emitError, Operation *kernelOp, LoweringConfigAttr config) {
  // An attribute built with get() in a release build was never verified;
  // everything below relies on it.
  if (failed(LoweringConfigAttr::verify(
          emitError, config.getWorkgroup(), config.getReduction(),
          config.getThread(), config.getSubgroup(), config.getWorkgroupSize(),
          config.getSubgroupSize(), config.getMma(), config.getMmaLoops(),
          config.getPromoteOperands(), config.getPipelineDepth(),
          config.getSplitK())))
    return failure();
  FailureOr<KernelLoopNest> maybeNest = getKernelLoopNest(kernelOp);
  if (failed(maybeNest))
    return success();
  const KernelLoopNest &nest = *maybeNest;
  if (config.getNumLoops() != nest.getNumLoops())
    return emitError() << "lowering config has " << config.getNumLoops()
                       << " workgroup tile sizes, but the kernel's root "
                          "linalg.generic has "
                       << nest.getNumLoops() << " loops ("
                       << loopNames(nest,
                                    [](const KernelLoop &) { return true; })
                       << ")";
  ArrayRef<int64_t> red = config.getReduction();
  for (auto [i, l] : llvm::enumerate(nest.loops)) {
    if (l.isReduction && config.getWorkgroup()[i] != 0)
      return emitError() << "workgroup tile " << config.getWorkgroup()[i]
                         << " on loop " << i << " (" << l.name
                         << "), which is a reduction";
    if (!l.isReduction && !red.empty() && red[i] != 0)
      return emitError() << "reduction tile " << red[i] << " on loop " << i
                         << " (" << l.name << "), which is parallel";
  }
  if (config.hasMma()) {
    if (!nest.isContraction)
      return emitError() << "mma needs a convolution (a contraction); this "
                            "kernel's root generic is not one";
    // The intrinsic's M and N are one M and one N loop of the implicit GEMM,
    // in either order (M on the GEMM's N loop puts each lane's accumulator
    // rows along the output channels, for NHWC outputs); K is a K loop.
    ArrayRef<int64_t> mmaLoops = config.getMmaLoops();
    const KernelLoop &lm = nest.loops[mmaLoops[0]],
                     &ln = nest.loops[mmaLoops[1]],
                     &lk = nest.loops[mmaLoops[2]];
    auto isGemmParallel = [](const KernelLoop &l) {
      return l.role == LoopRole::M || l.role == LoopRole::N;
    };
    if (!isGemmParallel(lm) || !isGemmParallel(ln) || lm.role == ln.role)
      return emitError() << "mma_loops M and N = loops " << mmaLoops[0] << " ("
                         << lm.name << ") and " << mmaLoops[1] << " ("
                         << ln.name
                         << ") must be one M and one N loop of the implicit "
                            "GEMM (M: "
                         << roleLoops(nest, LoopRole::M)
                         << "; N: " << roleLoops(nest, LoopRole::N) << ")";
    if (lk.role != LoopRole::K)
      return emitError() << "mma_loops K = loop " << mmaLoops[2] << " ("
                         << lk.name
                         << ") is not one of the K loops of the implicit GEMM ("
                         << roleLoops(nest, LoopRole::K) << ")";
    if (ln.phases > 1)
      return emitError() << "mma_loops N = loop " << mmaLoops[1] << " ("
                         << ln.name << ") has " << ln.phases
                         << " stride phases; only the M loop can be split "
                            "by phase";
    const MmaIntrinsic *intr = lookupMmaOnAnyChip(config.getMma());
    StringRef want = intr->getInputTypeName();
    for (int i = 0; i < 2; ++i) {
      Type t = nest.inputs[i].elementType;
      bool ok = want == "f16" ? t.isF16() : t.isBF16();
      if (!ok) {
        std::string got;
        llvm::raw_string_ostream os(got);
        os << t;
        return emitError() << "mma intrinsic '" << config.getMma() << "' takes "
                           << want << " inputs, but the " << nest.inputs[i].name
                           << " is " << got;
      }
    }
  }
  for (int64_t p : config.getPromoteOperands())
    if (p >= static_cast<int64_t>(nest.inputs.size()))
      return emitError() << "promote_operands index " << p
                         << " is out of range: the root generic has "
                         << nest.inputs.size() << " inputs ("
                         << llvm::join(
                                llvm::map_range(nest.inputs,
                                                [](const KernelOperand &in) {
                                                  return StringRef(in.name);
                                                }),
                                ", ")
                         << ")";
  return success();
}

LogicalResult
mlir::boo::verifyLoweringConfigForKernel(Operation *kernelOp,
                                         LoweringConfigAttr config) {
  return verifyLoweringConfigForKernel([&] { return defaultError(kernelOp); },
                                       kernelOp, config);
}

LogicalResult mlir::boo::verifyLoweringConfig(ConfigErrorFn emitError,
                                              Operation *kernelOp,
                                              LoweringConfigAttr config,
                                              const ChipInfo &chip) {
  if (failed(verifyLoweringConfigForKernel(emitError, kernelOp, config)))
    return failure();
  if (config.getSubgroupSize() != chip.waveSize)
    return emitError() << "subgroup_size " << config.getSubgroupSize()
                       << " is not " << chip.name << "'s wave size "
                       << chip.waveSize;
  if (config.getNumThreads() > chip.maxWorkgroupSize)
    return emitError() << "workgroup_size has " << config.getNumThreads()
                       << " threads; " << chip.name << " allows at most "
                       << chip.maxWorkgroupSize;
  if (config.hasMma() && !chip.lookupMma(config.getMma())) {
    SmallVector<StringRef> names;
    for (const MmaIntrinsic &m : chip.mmaIntrinsics)
      names.push_back(m.name);
    return emitError() << "mma intrinsic '" << config.getMma()
                       << "' is not available on " << chip.name
                       << " (available: " << llvm::join(names, ", ") << ")";
  }
  FailureOr<KernelLoopNest> nest = getKernelLoopNest(kernelOp);
  if (failed(nest) || config.getPromoteOperands().empty())
    return success();
  int64_t bytes = estimateLDSBytes(*nest, config);
  if (bytes <= chip.ldsBytes)
    return success();
  InFlightDiagnostic diag = emitError();
  diag << "the promoted tiles need " << bytes << " bytes of LDS (";
  llvm::interleaveComma(config.getPromoteOperands(), diag, [&](int64_t p) {
    diag << nest->inputs[p].name << ": "
         << operandTileBytes(*nest, nest->inputs[p], config) << " bytes";
  });
  diag << ", times pipeline_depth " << config.getPipelineDepth() << "), but "
       << chip.name << " has " << chip.ldsBytes;
  return diag;
}

LogicalResult mlir::boo::verifyLoweringConfig(Operation *kernelOp,
                                              LoweringConfigAttr config,
                                              const ChipInfo &chip) {
  return verifyLoweringConfig([&] { return defaultError(kernelOp); }, kernelOp,
                              config, chip);
}

//===----------------------------------------------------------------------===//
// Dialect hooks
//===----------------------------------------------------------------------===//

LogicalResult BooDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == kLoweringConfigAttrName) {
    auto config = dyn_cast<LoweringConfigAttr>(attr.getValue());
    if (!config)
      return op->emitOpError("'")
             << kLoweringConfigAttrName
             << "' must be a #boo.lowering_config, got " << attr.getValue();
    return verifyLoweringConfigForKernel(op, config);
  }
  if (attr.getName() != kTargetAttrName)
    return success(); // e.g. boo.mma markers of the GPU passes
  auto target = dyn_cast<TargetAttr>(attr.getValue());
  if (!target)
    return op->emitOpError("'")
           << kTargetAttrName << "' must be a #boo.target, got "
           << attr.getValue();
  if (!isa<ModuleOp>(op))
    return op->emitOpError("'")
           << kTargetAttrName << "' belongs on a builtin.module";
  const ChipInfo &chip = target.getChipInfo();
  // Every config in the module (but not in nested modules with their own
  // target) must suit the chip.
  WalkResult result = op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (nested != op && isa<ModuleOp>(nested) &&
        nested->hasAttr(kTargetAttrName))
      return WalkResult::skip();
    auto config =
        nested->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName);
    if (config && failed(verifyLoweringConfig(nested, config, chip)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

const ChipInfo *mlir::boo::resolveChip(Operation *op, StringRef passName) {
  for (Operation *p = op; p; p = p->getParentOp())
    if (auto target = p->getAttrOfType<TargetAttr>(kTargetAttrName))
      return &target.getChipInfo();
  op->emitError() << passName
                  << ": no #boo.target on the module (run boo-set-target "
                     "with chip=<chip>, or a pipeline with chip=, first)";
  return nullptr;
}
