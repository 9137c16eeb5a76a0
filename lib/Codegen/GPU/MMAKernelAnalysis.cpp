//===- MMAKernelAnalysis.cpp - The ops of one MMA kernel ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Finds and checks what boo-gpu-mma-kernels replaces around an accumulation
// generic with an MMA lowering config: the two factors of its product (which
// one is A, which B), the fill of its accumulator, and the element-wise
// epilogue generics that read the accumulator, with the temporary buffers
// only the kernel uses.
//
//===----------------------------------------------------------------------===//

#include "MMAKernel.h"

#include "Boo/Codegen/GPU/MMALayout.h"
#include "Boo/Target/ChipInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

using Factor = MMAKernel::Factor;

Value stripExt(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return v;
}

/// The body ops `value` needs and the loops it depends on.
Factor analyzeFactor(linalg::GenericOp op, Value value) {
  Factor f;
  f.value = value;
  Block *body = op.getBody();
  SmallVector<Value> worklist = {value};
  llvm::SmallDenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body)
        continue;
      AffineMap map =
          op.getMatchingIndexingMap(&op->getOpOperand(arg.getArgNumber()));
      for (unsigned d = 0; d < map.getNumDims(); ++d)
        if (map.isFunctionOfDim(d))
          f.loops.insert(d);
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body)
      continue;
    f.ops.insert(def);
    if (auto index = dyn_cast<linalg::IndexOp>(def))
      f.loops.insert(index.getDim());
    for (Value operand : def->getOperands())
      worklist.push_back(operand);
    for (Region &region : def->getRegions()) {
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(region, above);
      for (Value a : above)
        worklist.push_back(a);
      // Index ops and block arguments used inside nested regions are
      // found through `above`.
    }
  }
  // Body order, so that clones see their operands first.
  SmallVector<Operation *> ordered(f.ops.begin(), f.ops.end());
  llvm::sort(ordered,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  f.ops = llvm::SetVector<Operation *>(ordered.begin(), ordered.end());
  return f;
}

/// Checks that item i of every lane's A (and B) fragment is item 0 moved by
/// i along K, so a fragment is one contiguous run in a k-contiguous tile.
bool fragmentsAreKContiguous(const MMAIntrinsicLayout &l) {
  for (int64_t lane = 0; lane < l.waveSize; ++lane) {
    auto a0 = l.aCoord<int64_t>(lane, 0);
    for (int64_t i = 0; i < l.aItems; ++i)
      if (l.aCoord<int64_t>(lane, i) != std::make_pair(a0.first, a0.second + i))
        return false;
    auto b0 = l.bCoord<int64_t>(lane, 0);
    for (int64_t i = 0; i < l.bItems; ++i)
      if (l.bCoord<int64_t>(lane, i) != std::make_pair(b0.first + i, b0.second))
        return false;
  }
  return true;
}

/// A buffer allocated for the kernel's intermediate values (or a reshape
/// of one, e.g. the group dims of a grouped convolution folded).
bool isKernelTemporary(Value buf) {
  if (auto reshape = buf.getDefiningOp<memref::CollapseShapeOp>())
    return isKernelTemporary(reshape.getSrc());
  if (auto reshape = buf.getDefiningOp<memref::ExpandShapeOp>())
    return isKernelTemporary(reshape.getSrc());
  return buf.getDefiningOp<memref::AllocOp>() != nullptr;
}

/// Adds the reshapes of the kernel's temporaries in `read` to `read` (and
/// to `forwarded`): values held in registers are read through them too.
void addReshapes(llvm::SmallDenseSet<Value> &read,
                 llvm::SmallDenseSet<Value> &forwarded) {
  SmallVector<Value> worklist(forwarded.begin(), forwarded.end());
  while (!worklist.empty()) {
    Value buf = worklist.pop_back_val();
    for (Operation *user : buf.getUsers())
      if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(user) &&
          forwarded.insert(user->getResult(0)).second) {
        read.insert(user->getResult(0));
        worklist.push_back(user->getResult(0));
      }
  }
}

/// Checks the accumulation and its config against `chip` and sets the
/// kernel's intrinsic layout and M, N and K loops.
LogicalResult checkConfig(MMAKernel &kernel, const ChipInfo &chip) {
  linalg::GenericOp acc = kernel.acc;
  LoweringConfigAttr config = kernel.config;
  auto fail = [&](const Twine &msg) { return emitMMAKernelError(kernel, msg); };
  if (!acc.hasPureBufferSemantics())
    return fail("expects a bufferized accumulation (memref operands)");
  if (acc.getNumDpsInits() != 1)
    return fail("expects one accumulator");
  int64_t numLoops = acc.getNumLoops();
  if (config.getNumLoops() != numLoops)
    return fail("the lowering config has " + Twine(config.getNumLoops()) +
                " tiles for " + Twine(numLoops) + " loops");
  if (!chip.lookupMma(config.getMma()))
    return fail("MMA intrinsic '" + config.getMma() + "' is not available on " +
                chip.name);
  kernel.layout = lookupMMAIntrinsic(config.getMma(), getWMMAGeneration(chip));
  if (!kernel.layout)
    return fail("no per-lane layout is known for '" + config.getMma() +
                "' on " + chip.name);
  if (!fragmentsAreKContiguous(*kernel.layout))
    return fail("fragments of '" + config.getMma() +
                "' are not contiguous along K");
  ArrayRef<int64_t> mmaLoops = config.getMmaLoops();
  if (mmaLoops.size() != 3)
    return fail("the config's mma_loops must name the M, N and K loops");
  kernel.m = mmaLoops[0];
  kernel.n = mmaLoops[1];
  kernel.k = mmaLoops[2];
  if (!llvm::all_of(acc.getStaticLoopRanges(),
                    [](int64_t r) { return !ShapedType::isDynamic(r); }))
    return fail("expects static loop ranges");
  auto iterators = acc.getIteratorTypesArray();
  if (iterators[kernel.m] != utils::IteratorType::parallel ||
      iterators[kernel.n] != utils::IteratorType::parallel ||
      iterators[kernel.k] != utils::IteratorType::reduction)
    return fail("mma_loops must be a parallel M, a parallel N and a "
                "reduction K loop");
  return success();
}

/// Matches the body, out + a * b (or fma(a, b, out)) with a and b f16/bf16
/// values extended to f32, and sets the kernel's A and B factors: A does not
/// depend on the N loop, B not on the M loop.
LogicalResult matchProduct(MMAKernel &kernel) {
  linalg::GenericOp acc = kernel.acc;
  auto fail = [&](const Twine &msg) { return emitMMAKernelError(kernel, msg); };
  Block *body = acc.getBody();
  Value out = body->getArgument(acc.getNumDpsInputs());
  Value yielded = body->getTerminator()->getOperand(0);
  Value x, y;
  if (auto fma = yielded.getDefiningOp<math::FmaOp>();
      fma && fma.getC() == out) {
    x = fma.getA();
    y = fma.getB();
  } else if (auto add = yielded.getDefiningOp<arith::AddFOp>()) {
    Value other = add.getLhs() == out   ? add.getRhs()
                  : add.getRhs() == out ? add.getLhs()
                                        : Value();
    auto mul = other ? other.getDefiningOp<arith::MulFOp>() : nullptr;
    if (mul) {
      x = mul.getLhs();
      y = mul.getRhs();
    }
  }
  if (!x)
    return fail("the body is not an accumulation of a product");
  x = stripExt(x);
  y = stripExt(y);
  MLIRContext *ctx = acc.getContext();
  Type want = kernel.layout->bf16 ? Type(BFloat16Type::get(ctx))
                                  : Type(Float16Type::get(ctx));
  if (x.getType() != want || y.getType() != want)
    return fail("the factors are not " +
                Twine(kernel.layout->bf16 ? "bf16" : "f16") + " values, as '" +
                kernel.config.getMma() + "' needs");
  Factor fx = analyzeFactor(acc, x), fy = analyzeFactor(acc, y);
  auto isA = [&](const Factor &f) { return !f.loops.contains(kernel.n); };
  auto isB = [&](const Factor &f) { return !f.loops.contains(kernel.m); };
  if (isA(fx) && isB(fy)) {
    kernel.a = fx;
    kernel.b = fy;
  } else if (isA(fy) && isB(fx)) {
    kernel.a = fy;
    kernel.b = fx;
  } else {
    return fail("one factor must not depend on the N loop and the other "
                "not on the M loop");
  }
  return success();
}

/// Sets the fill of the accumulator: the last op before the accumulation
/// that writes its buffer, which must write one f32 value.
LogicalResult findFill(MMAKernel &kernel) {
  linalg::GenericOp acc = kernel.acc;
  Value accBuf = acc.getDpsInitOperand(0)->get();
  for (Operation *prev = acc->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(prev);
    if (!dps || !llvm::is_contained(dps.getDpsInits(), accBuf))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      kernel.initValue = fill.getInputs()[0];
    } else if (auto generic = dyn_cast<linalg::GenericOp>(prev);
               generic && generic.getNumDpsInputs() == 0) {
      Value v = generic.getBody()->getTerminator()->getOperand(0);
      if (v.getParentBlock() != generic.getBody())
        kernel.initValue = v;
    }
    kernel.fill = prev;
    break;
  }
  if (!kernel.fill || !kernel.initValue || !kernel.initValue.getType().isF32())
    return emitMMAKernelError(
        kernel, "the accumulator must be filled with an f32 value "
                "before the accumulation");
  return success();
}

/// Sets the epilogues: generics after the accumulation reading its buffer
/// (or a buffer an earlier epilogue wrote), all-parallel, through
/// permutations; and the internal buffers, which nothing else may use.
LogicalResult collectEpilogues(MMAKernel &kernel) {
  linalg::GenericOp acc = kernel.acc;
  Value accBuf = acc.getDpsInitOperand(0)->get();
  llvm::SmallDenseSet<Value> forwarded;
  if (isKernelTemporary(accBuf))
    forwarded.insert(accBuf);
  llvm::SmallDenseSet<Value> read = {accBuf};
  addReshapes(read, forwarded);
  for (Operation *next = acc->getNextNode(); next; next = next->getNextNode()) {
    auto generic = dyn_cast<linalg::GenericOp>(next);
    if (!generic || llvm::none_of(generic.getDpsInputs(),
                                  [&](Value v) { return read.contains(v); }))
      continue;
    if (generic.getNumReductionLoops() != 0)
      return generic.emitOpError()
             << "boo-gpu-mma-kernels: an epilogue with reduction loops";
    for (OpOperand *input : generic.getDpsInputOperands())
      if (read.contains(input->get()) &&
          !generic.getMatchingIndexingMap(input).isPermutation())
        return generic.emitOpError()
               << "boo-gpu-mma-kernels: an epilogue must read the "
                  "accumulator through a permutation";
    for (OpOperand &init : generic.getDpsInitsMutable()) {
      if (!generic.getMatchingIndexingMap(&init).isPermutation())
        return generic.emitOpError()
               << "boo-gpu-mma-kernels: an epilogue must write through a "
                  "permutation";
      read.insert(init.get());
      if (isKernelTemporary(init.get()))
        forwarded.insert(init.get());
    }
    kernel.epilogues.push_back(generic);
    addReshapes(read, forwarded);
  }
  kernel.internalBuffers.assign(forwarded.begin(), forwarded.end());
  // A temporary must not be used by anything outside the kernel.
  llvm::SmallPtrSet<Operation *, 8> kernelOps = {acc, kernel.fill};
  for (linalg::GenericOp e : kernel.epilogues)
    kernelOps.insert(e);
  for (Value buf : kernel.internalBuffers)
    for (Operation *user : buf.getUsers())
      if (!kernelOps.contains(user) && !isa<memref::DeallocOp>(user))
        return user->emitOpError() << "boo-gpu-mma-kernels: uses an MMA "
                                      "kernel's intermediate buffer";
  return success();
}

} // namespace

InFlightDiagnostic mlir::boo::emitMMAKernelError(const MMAKernel &kernel,
                                                 const Twine &msg) {
  linalg::GenericOp acc = kernel.acc;
  return acc.emitOpError() << "boo-gpu-mma-kernels: " << msg;
}

FailureOr<MMAKernel> mlir::boo::analyzeMMAKernel(linalg::GenericOp acc,
                                                 const ChipInfo &chip) {
  MMAKernel kernel;
  kernel.acc = acc;
  kernel.config =
      acc->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName);
  if (failed(checkConfig(kernel, chip)) || failed(matchProduct(kernel)) ||
      failed(findFill(kernel)) || failed(collectEpilogues(kernel)))
    return failure();
  return kernel;
}
