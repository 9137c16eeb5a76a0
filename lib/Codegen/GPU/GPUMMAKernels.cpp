//===- GPUMMAKernels.cpp - boo-gpu-mma-kernels ----------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Builds the kernels whose `#boo.lowering_config` names an MMA intrinsic: an
// implicit GEMM over the config's M, N and K loops (`mma_loops`) of the
// accumulation generic, on MFMA (CDNA) or WMMA (RDNA). boo-gpu-distribute
// leaves these kernels whole; this pass runs after bufferization and
// replaces the kernel's ops (the fill of the accumulator, the accumulation
// generic, the epilogue generics reading it) by one workgroup/thread
// `scf.forall` nest that boo-gpu-forall-to-launch turns into a launch:
//
//   workgroup (p..., mTile, nTile):          one per workgroup tile
//     LDS A[depth][wgM][kT], B[depth][wgN][kT] (k contiguous)
//     thread t (wave w = t / W, lane l = t % W):
//       acc[i][j] = splat(fill value)       per MMA tile of the subgroup tile
//       for each step s (the other reduction loops x K / kT):
//         all threads stage the A and B tiles of step s into LDS: each
//         element is the generic's operand value at that iteration (its
//         body's reads replayed: padding and zero-stuffing guards included),
//         0 outside the problem (partial tiles)
//         barrier; then per k-slice: fragments from LDS at the lane's
//         positions (MMALayout.h), acc[i][j] = mfma/wmma(a[i], b[j], acc)
//       epilogue: each lane's D elements inside the problem go through the
//       epilogue generics' bodies in registers and are stored once
//
// With pipeline_depth = 2 the staging of step s+1 goes to the other LDS
// buffer while step s is computed (one barrier per step); with depth 1 the
// kernel stages, synchronizes and computes (two barriers per step). An
// operand that is not promoted (promote_operands: 0 is A, 1 is B) has its
// fragments read straight from global memory.
//
// A backward data with stride > 1 (#boo.stride_phases) splits M by phase
// (m = phase + s*q): each workgroup then knows which filter taps read
// gradient elements and its steps visit only those (see StridePhases.h).
//
//===----------------------------------------------------------------------===//

#include "GPUUtils.h"
#include "Boo/Codegen/GPU/MMALayout.h"
#include "StridePhases.h"

#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Target/ChipInfo.h"
#include "Boo/Codegen/GPU/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPUMMAKERNELS
#include "Boo/Codegen/GPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;

namespace {

/// How one factor of the product in the accumulation's body is computed:
/// the body ops it needs (in body order) and the operands it reads.
struct Factor {
  Value value; // the f16/bf16 value, before any extension to f32
  llvm::SetVector<Operation *> ops;
  llvm::SmallDenseSet<unsigned> loops; // loops the value depends on
};

/// The parts of one MMA kernel.
struct MMAKernel {
  linalg::GenericOp acc;
  LoweringConfigAttr config;
  const MMAIntrinsicLayout *layout;
  unsigned m, n, k;
  Factor a, b;
  Operation *fill = nullptr; // writes the accumulator's initial value
  Value initValue;           // f32 constant
  /// Generics reading the accumulator (or a buffer an earlier one wrote
  /// and only these read), in program order.
  SmallVector<linalg::GenericOp> epilogues;
  /// Buffers only the kernel uses (never stored; erased with the kernel).
  SmallVector<Value> internalBuffers;
};

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
      AffineMap map = op.getMatchingIndexingMap(
          &op->getOpOperand(arg.getArgNumber()));
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
  llvm::sort(ordered, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  f.ops = llvm::SetVector<Operation *>(ordered.begin(), ordered.end());
  return f;
}

/// The indices into an operand with indexing map `map` at loop coordinates
/// `coords`.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ValueRange coords) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults())
    indices.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, e), coords));
  return indices;
}

/// Replays `f`'s body ops at loop coordinates `coords`: block arguments
/// become loads through their indexing maps, linalg.index the coordinate.
Value materialize(OpBuilder &b, Location loc, linalg::GenericOp op,
                  const Factor &f, ValueRange coords) {
  IRMapping mapping;
  Block *body = op.getBody();
  auto mapArg = [&](BlockArgument arg) {
    if (mapping.contains(arg))
      return;
    OpOperand &operand = op->getOpOperand(arg.getArgNumber());
    mapping.map(arg, memref::LoadOp::create(
                         b, loc, operand.get(),
                         applyMap(b, loc, op.getMatchingIndexingMap(&operand),
                                  coords)));
  };
  auto mapUses = [&](Operation *bodyOp) {
    for (Value v : bodyOp->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body)
        mapArg(arg);
    for (Region &region : bodyOp->getRegions()) {
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(region, above);
      for (Value v : above)
        if (auto arg = dyn_cast<BlockArgument>(v);
            arg && arg.getOwner() == body)
          mapArg(arg);
    }
  };
  for (Operation *bodyOp : f.ops) {
    if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
      mapping.map(index.getResult(), coords[index.getDim()]);
      continue;
    }
    mapUses(bodyOp);
    b.clone(*bodyOp, mapping);
  }
  if (auto arg = dyn_cast<BlockArgument>(f.value))
    mapArg(arg);
  return mapping.lookup(f.value);
}

/// `cond ? then() : zero` as an scf.if yielding one value of `type`.
Value selectOrZero(OpBuilder &b, Location loc, Value cond, Type type,
                   function_ref<Value(OpBuilder &)> then) {
  auto ifOp = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &tb, Location l) {
        scf::YieldOp::create(tb, l, then(tb));
      },
      [&](OpBuilder &eb, Location l) {
        Value zero = arith::ConstantOp::create(
            eb, l, type, eb.getZeroAttr(type));
        scf::YieldOp::create(eb, l, zero);
      });
  return ifOp.getResult(0);
}

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value addConst(OpBuilder &b, Location loc, Value x, int64_t c) {
  if (c == 0)
    return x;
  return arith::AddIOp::create(b, loc, x, cIndex(b, loc, c));
}

Value lessThan(OpBuilder &b, Location loc, Value x, int64_t bound) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                               cIndex(b, loc, bound));
}

Value andAll(OpBuilder &b, Location loc, ArrayRef<Value> conds) {
  Value result;
  for (Value c : conds)
    result = result ? arith::AndIOp::create(b, loc, result, c).getResult() : c;
  return result;
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

struct BooGPUMMAKernelsPass
    : public boo::impl::BooGPUMMAKernelsBase<BooGPUMMAKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *chipInfo =
        resolveChip(getOperation(), chip, "boo-gpu-mma-kernels");
    if (!chipInfo)
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        elideResultCopies(rewriter, func);
    SmallVector<linalg::GenericOp> accs;
    getOperation().walk([&](linalg::GenericOp op) {
      auto config =
          op->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName);
      if (config && config.hasMma())
        accs.push_back(op);
    });
    for (linalg::GenericOp acc : accs) {
      FailureOr<MMAKernel> kernel = analyze(acc, *chipInfo);
      if (failed(kernel) || failed(build(*kernel, *chipInfo)))
        return signalPassFailure();
    }
  }

  //===--------------------------------------------------------------------===//
  // Analysis
  //===--------------------------------------------------------------------===//

  FailureOr<MMAKernel> analyze(linalg::GenericOp acc, const ChipInfo &chip) {
    auto fail = [&](const Twine &msg) {
      return acc.emitOpError() << "boo-gpu-mma-kernels: " << msg;
    };
    MMAKernel kernel;
    kernel.acc = acc;
    kernel.config =
        acc->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName);
    LoweringConfigAttr config = kernel.config;
    if (!acc.hasPureBufferSemantics())
      return fail("expects a bufferized accumulation (memref operands)");
    if (acc.getNumDpsInits() != 1)
      return fail("expects one accumulator");
    int64_t numLoops = acc.getNumLoops();
    if (config.getNumLoops() != numLoops)
      return fail("the lowering config has " + Twine(config.getNumLoops()) +
                  " tiles for " + Twine(numLoops) + " loops");
    if (!chip.lookupMma(config.getMma()))
      return fail("MMA intrinsic '" + config.getMma() +
                  "' is not available on " + chip.name);
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

    // The body: out + a * b (or fma(a, b, out)), a and b f16/bf16 values
    // extended to f32.
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
    Type want = kernel.layout->bf16 ? Type(BFloat16Type::get(&getContext()))
                                    : Type(Float16Type::get(&getContext()));
    if (x.getType() != want || y.getType() != want)
      return fail("the factors are not " + Twine(kernel.layout->bf16 ? "bf16"
                                                                     : "f16") +
                  " values, as '" + config.getMma() + "' needs");
    Factor fx = analyzeFactor(acc, x), fy = analyzeFactor(acc, y);
    auto isA = [&](const Factor &f) {
      return !f.loops.contains(kernel.n);
    };
    auto isB = [&](const Factor &f) {
      return !f.loops.contains(kernel.m);
    };
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

    // The fill of the accumulator: the last op before the accumulation
    // that writes its buffer.
    Value accBuf = acc.getDpsInitOperand(0)->get();
    for (Operation *prev = acc->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
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
    if (!kernel.fill || !kernel.initValue ||
        !kernel.initValue.getType().isF32())
      return fail("the accumulator must be filled with an f32 value before "
                  "the accumulation");

    // Epilogues: generics after the accumulation reading its buffer (or a
    // buffer an earlier epilogue wrote), all-parallel, through permutations.
    llvm::SmallDenseSet<Value> forwarded;
    if (isKernelTemporary(accBuf))
      forwarded.insert(accBuf);
    llvm::SmallDenseSet<Value> read = {accBuf};
    addReshapes(read, forwarded);
    for (Operation *next = acc->getNextNode(); next;
         next = next->getNextNode()) {
      auto generic = dyn_cast<linalg::GenericOp>(next);
      if (!generic || llvm::none_of(generic.getDpsInputs(), [&](Value v) {
            return read.contains(v);
          }))
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
          return user->emitOpError()
                 << "boo-gpu-mma-kernels: uses an MMA kernel's "
                    "intermediate buffer";
    return kernel;
  }

  /// A buffer allocated for the kernel's intermediate values (or a reshape
  /// of one, e.g. the group dims of a grouped convolution folded).
  static bool isKernelTemporary(Value buf) {
    if (auto reshape = buf.getDefiningOp<memref::CollapseShapeOp>())
      return isKernelTemporary(reshape.getSrc());
    if (auto reshape = buf.getDefiningOp<memref::ExpandShapeOp>())
      return isKernelTemporary(reshape.getSrc());
    return buf.getDefiningOp<memref::AllocOp>() != nullptr;
  }

  /// Adds the reshapes of the kernel's temporaries in `read` to `read` (and
  /// to `forwarded`): values held in registers are read through them too.
  static void addReshapes(llvm::SmallDenseSet<Value> &read,
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

  /// Indices into the result of `reshape` (a collapse or expand of a
  /// static buffer) of the element at `indices` of its source.
  static SmallVector<Value> reshapeIndices(OpBuilder &b, Location loc,
                                           Operation *reshape,
                                           ArrayRef<Value> indices) {
    SmallVector<Value> result;
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape)) {
      ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
      for (ReassociationIndices group : collapse.getReassociationIndices()) {
        Value linear = indices[group.front()];
        for (int64_t d : ArrayRef<int64_t>(group).drop_front())
          linear = arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, linear,
                                            cIndex(b, loc, shape[d])),
              indices[d]);
        result.push_back(linear);
      }
      return result;
    }
    auto expand = cast<memref::ExpandShapeOp>(reshape);
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    for (auto [src, group] :
         llvm::enumerate(expand.getReassociationIndices())) {
      Value rest = indices[src];
      SmallVector<Value> parts(group.size());
      for (int64_t i = group.size() - 1; i >= 0; --i) {
        Value size = cIndex(b, loc, shape[group[i]]);
        parts[i] = i == 0 ? rest : arith::RemUIOp::create(b, loc, rest, size);
        if (i != 0)
          rest = arith::DivUIOp::create(b, loc, rest, size);
      }
      result.append(parts);
    }
    return result;
  }

  /// Records `value` at `indices` of `buf` and of every reshape of it.
  static void hold(
      OpBuilder &b, Location loc,
      llvm::DenseMap<Value, std::pair<Value, SmallVector<Value>>> &held,
      Value buf, Value value, SmallVector<Value> indices) {
    for (Operation *user : buf.getUsers())
      if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(user))
        hold(b, loc, held, user->getResult(0), value,
             reshapeIndices(b, loc, user, indices));
    held[buf] = {value, std::move(indices)};
  }

  //===--------------------------------------------------------------------===//
  // Code generation
  //===--------------------------------------------------------------------===//

  LogicalResult build(MMAKernel &kernel, const ChipInfo &chip) {
    linalg::GenericOp acc = kernel.acc;
    LoweringConfigAttr config = kernel.config;
    const MMAIntrinsicLayout &mma = *kernel.layout;
    MLIRContext *ctx = &getContext();
    Location loc = acc.getLoc();
    int64_t numLoops = acc.getNumLoops();
    SmallVector<int64_t> ranges = acc.getStaticLoopRanges();
    auto iterators = acc.getIteratorTypesArray();
    ArrayRef<int64_t> wgTiles = config.getWorkgroup();
    ArrayRef<int64_t> sgTiles = config.getSubgroup();
    ArrayRef<int64_t> redTiles = config.getReduction();
    unsigned mL = kernel.m, nL = kernel.n, kL = kernel.k;
    int64_t extM = ranges[mL], extN = ranges[nL], extK = ranges[kL];
    int64_t wgM = wgTiles[mL], wgN = wgTiles[nL];
    int64_t sgM = sgTiles.empty() ? wgM : sgTiles[mL];
    int64_t sgN = sgTiles.empty() ? wgN : sgTiles[nL];
    int64_t kT = redTiles.empty() ? mma.k : redTiles[kL];
    int64_t waveSize = config.getSubgroupSize();
    int64_t threads = config.getWorkgroupSize()[0];
    auto fail = [&](const Twine &msg) {
      return acc.emitOpError() << "boo-gpu-mma-kernels: " << msg;
    };
    if (waveSize != mma.waveSize)
      return fail("subgroup_size " + Twine(waveSize) + " but '" + mma.name +
                  "' runs on waves of " + Twine(mma.waveSize));
    if (wgM <= 0 || wgN <= 0 || sgM <= 0 || sgN <= 0 || wgM % sgM ||
        wgN % sgN || sgM % mma.m || sgN % mma.n || kT <= 0 || kT % mma.k)
      return fail("the workgroup, subgroup and K tiles must be multiples of "
                  "the subgroup tiles and of " + mma.name);
    int64_t wavesM = wgM / sgM, wavesN = wgN / sgN;
    if (threads != wavesM * wavesN * waveSize)
      return fail("workgroup_size " + Twine(threads) + " is not " +
                  Twine(wavesM * wavesN) + " subgroup(s) of " + Twine(waveSize));
    // Every other parallel loop is one iteration per workgroup; every other
    // reduction loop one step at a time.
    for (int64_t d = 0; d < numLoops; ++d)
      if (d != mL && d != nL && iterators[d] == utils::IteratorType::parallel &&
          wgTiles[d] != 1 && !(wgTiles[d] == 0 && ranges[d] == 1))
        return fail("the MMA strategy needs workgroup tile 1 on loop " +
                    Twine(d) + " (not M or N)");
    int64_t tilesM = sgM / mma.m, tilesN = sgN / mma.n;
    // Backward data with stride > 1 (#boo.stride_phases): each tap loop
    // steps over the taps that can contribute, which the workgroup's input
    // position fixes: M workgroups are split by phase (M = phase + s*q, a
    // tile of q), the other input loops have one value per workgroup.
    SmallVector<StridePhase> phases;
    const StridePhase *mPhase = nullptr;
    for (const StridePhase &p : getStridePhases(acc))
      if (iterators[p.tapLoop] == utils::IteratorType::reduction &&
          p.tapLoop != kL && p.inputLoop != nL &&
          iterators[p.inputLoop] == utils::IteratorType::parallel)
        phases.push_back(p);
    for (const StridePhase &p : phases)
      if (p.inputLoop == mL)
        mPhase = &p;
    // M positions per phase (all of M without a phase split).
    int64_t extMq = mPhase ? llvm::divideCeil(extM, mPhase->stride) : extM;
    int64_t depth = std::max<int64_t>(1, config.getPipelineDepth());
    // Inputs 0 and 1 of the root generic (KernelLoopNest) are A and B.
    bool stagedA = llvm::is_contained(config.getPromoteOperands(), 0);
    bool stagedB = llvm::is_contained(config.getPromoteOperands(), 1);
    bool staged = stagedA || stagedB;
    if (!staged)
      depth = 1;

    OpBuilder b(acc);
    Type elemType = kernel.a.value.getType();
    Type f32 = b.getF32Type();
    VectorType accType = VectorType::get({mma.cItems}, f32);
    VectorType aType = VectorType::get({mma.aItems}, elemType);
    VectorType bType = VectorType::get({mma.bItems}, elemType);

    // Workgroups: one per (other parallel loop values, M tile, N tile); the
    // N tile varies fastest.
    SmallVector<int64_t> parallelLoops, gridCounts;
    for (int64_t d = 0; d < numLoops; ++d)
      if (iterators[d] == utils::IteratorType::parallel) {
        parallelLoops.push_back(d);
        gridCounts.push_back(
            d == mL   ? llvm::divideCeil(extMq, wgM) *
                          (mPhase ? mPhase->stride : 1)
            : d == nL ? llvm::divideCeil(extN, wgN)
                      : ranges[d]);
      }
    SmallVector<Attribute> blockMapping;
    {
      int64_t next = 1;
      for (int64_t d : parallelLoops)
        blockMapping.push_back(gpu::GPUBlockMappingAttr::get(
            ctx, static_cast<gpu::MappingId>(
                     static_cast<int64_t>(gpu::MappingId::LinearDim0) +
                     (d == nL ? 0 : next++))));
    }
    auto workgroupLoop = scf::ForallOp::create(
        b, loc, getAsIndexOpFoldResult(ctx, gridCounts), ValueRange(),
        b.getArrayAttr(blockMapping));
    b.setInsertionPointToStart(workgroupLoop.getBody());
    // Coordinates of the workgroup: the M/N tile origins and the other
    // parallel loops' values.
    // With a phase split, base[M] is the tile origin in q.
    SmallVector<Value> base(numLoops);
    Value mPhaseValue;
    for (auto [i, d] : llvm::enumerate(parallelLoops)) {
      Value iv = workgroupLoop.getInductionVar(i);
      if (d == mL && mPhase) {
        Value s = cIndex(b, loc, mPhase->stride);
        mPhaseValue = arith::RemUIOp::create(b, loc, iv, s);
        iv = arith::DivUIOp::create(b, loc, iv, s);
      }
      if (d == mL || d == nL)
        iv = arith::MulIOp::create(b, loc, iv,
                                   cIndex(b, loc, d == mL ? wgM : wgN));
      base[d] = iv;
    }
    // The M loop's value at `row` of the workgroup tile, and N's.
    auto globalRow = [&](OpBuilder &gb, int64_t loop, Value row) -> Value {
      Value q = arith::AddIOp::create(gb, loc, base[loop], row);
      if (loop != mL || !mPhase)
        return q;
      return arith::AddIOp::create(
          gb, loc, mPhaseValue,
          arith::MulIOp::create(gb, loc, q, cIndex(gb, loc, mPhase->stride)));
    };
    Attribute workgroupSpace =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value ldsA, ldsB;
    if (stagedA)
      ldsA = memref::AllocOp::create(
          b, loc,
          MemRefType::get({depth, wgM, kT}, elemType, MemRefLayoutAttrInterface(),
                          workgroupSpace));
    if (stagedB)
      ldsB = memref::AllocOp::create(
          b, loc,
          MemRefType::get({depth, wgN, kT}, elemType, MemRefLayoutAttrInterface(),
                          workgroupSpace));
    scf::ForallOp threadLoop = createThreadLoop(b, loc, threads);
    Value tid = threadLoop.getInductionVar(0);
    Value wave = arith::DivUIOp::create(b, loc, tid, cIndex(b, loc, waveSize));
    Value lane = arith::RemUIOp::create(b, loc, tid, cIndex(b, loc, waveSize));
    Value waveM = arith::RemUIOp::create(b, loc, wave, cIndex(b, loc, wavesM));
    Value waveN = arith::DivUIOp::create(b, loc, wave, cIndex(b, loc, wavesM));
    // Origins of this subgroup's tile inside the workgroup tile.
    Value sgRowM = arith::MulIOp::create(b, loc, waveM, cIndex(b, loc, sgM));
    Value sgRowN = arith::MulIOp::create(b, loc, waveN, cIndex(b, loc, sgN));

    Value zeroIdx = cIndex(b, loc, 0);
    // Steps: the other reduction loops (outer to inner), then K tiles. A
    // phased tap loop steps over the taps r, r + step, ... that this
    // workgroup's input position reads, ceil(F / step) of them; a step
    // whose tap is past the filter (or that has none) is skipped by the
    // whole workgroup: no staging, no MMA. (Counts stay static: a division
    // by a per-workgroup count in every step costs more registers than
    // the few skipped steps.)
    struct PhasedTap {
      const StridePhase *phase;
      Value first, exists; // exists: null when always true
    };
    llvm::SmallDenseMap<int64_t, PhasedTap> phasedTaps; // by tap loop
    for (const StridePhase &p : phases) {
      bool isM = p.inputLoop == mL;
      auto [first, exists] = p.buildFirstTap(
          b, loc, isM ? mPhaseValue : base[p.inputLoop],
          isM ? p.stride : ranges[p.inputLoop]);
      phasedTaps[p.tapLoop] = {&p, first, exists};
    }
    SmallVector<int64_t> stepLoops, stepCounts;
    for (int64_t d = 0; d < numLoops; ++d)
      if (iterators[d] == utils::IteratorType::reduction && d != kL) {
        stepLoops.push_back(d);
        auto tap = phasedTaps.find(d);
        stepCounts.push_back(tap == phasedTaps.end()
                                 ? ranges[d]
                                 : tap->second.phase->getNumSteps(ranges[d]));
      }
    stepLoops.push_back(kL);
    stepCounts.push_back(llvm::divideCeil(extK, kT));
    int64_t numSteps = 1;
    for (int64_t c : stepCounts)
      numSteps *= c;

    // Loop coordinates of step `step` (K at its tile origin), and whether
    // its phased taps exist (null without phased taps).
    auto stepCoords = [&](OpBuilder &sb, Value step) {
      SmallVector<Value> coords(base.begin(), base.end());
      if (mPhase)
        coords[mL] = nullptr; // base[M] is in q; set per row
      SmallVector<Value> conds;
      Value rest = step;
      for (int64_t i = stepLoops.size() - 1; i >= 0; --i) {
        Value count = cIndex(sb, loc, stepCounts[i]);
        Value v = i == 0 ? rest : arith::RemUIOp::create(sb, loc, rest, count);
        if (i != 0)
          rest = arith::DivUIOp::create(sb, loc, rest, count);
        if (stepLoops[i] == kL)
          v = arith::MulIOp::create(sb, loc, v, cIndex(sb, loc, kT));
        auto tap = phasedTaps.find(stepLoops[i]);
        if (tap != phasedTaps.end()) {
          const PhasedTap &t = tap->second;
          v = arith::AddIOp::create(
              sb, loc, t.first,
              arith::MulIOp::create(sb, loc, v,
                                    cIndex(sb, loc, t.phase->tapStep)));
          conds.push_back(lessThan(sb, loc, v, ranges[stepLoops[i]]));
          if (t.exists)
            conds.push_back(t.exists);
        }
        coords[stepLoops[i]] = v;
      }
      return std::make_pair(coords, andAll(sb, loc, conds));
    };
    // Operand value at `coords` (all loops set), 0 outside the problem.
    auto operandValue = [&](OpBuilder &ob, const Factor &f,
                            SmallVector<Value> coords, Value mOrN,
                            int64_t mOrNLoop, int64_t mOrNExtent,
                            Value kCoord) {
      coords[mOrNLoop] = mOrN;
      coords[kL] = kCoord;
      // The loop this factor does not read: any in-range value.
      coords[mOrNLoop == mL ? nL : mL] = zeroIdx;
      for (Value &c : coords)
        if (!c)
          c = zeroIdx;
      Value inRange = andAll(ob, loc,
                             {lessThan(ob, loc, mOrN, mOrNExtent),
                              lessThan(ob, loc, kCoord, extK)});
      return selectOrZero(ob, loc, inRange, elemType, [&](OpBuilder &tb) {
        return materialize(tb, loc, acc, f, coords);
      });
    };

    // Stages the A and B tiles of `step` into LDS buffer `buffer`.
    auto stage = [&](OpBuilder &outer, Value step, Value buffer) {
      std::pair<SmallVector<Value>, Value> at = stepCoords(outer, step);
      SmallVector<Value> &coords = at.first;
      Value kBase = coords[kL];
      // A skipped step stages nothing (its compute is skipped too).
      OpBuilder sb = outer;
      if (Value valid = at.second) {
        auto guard = scf::IfOp::create(outer, loc, valid,
                                       /*withElseRegion=*/false);
        sb = OpBuilder::atBlockTerminator(guard.thenBlock());
      }
      auto stageOne = [&](Value lds, const Factor &f, int64_t rows,
                          int64_t loop, int64_t extent) {
        int64_t elements = rows * kT;
        int64_t perThread = llvm::divideCeil(elements, threads);
        auto forOp = scf::ForOp::create(sb, loc, zeroIdx,
                                        cIndex(sb, loc, perThread),
                                        cIndex(sb, loc, 1));
        OpBuilder fb = OpBuilder::atBlockTerminator(forOp.getBody());
        Value idx = arith::AddIOp::create(
            fb, loc, tid,
            arith::MulIOp::create(fb, loc, forOp.getInductionVar(),
                                  cIndex(fb, loc, threads)));
        auto body = [&](OpBuilder &ib) {
          Value row = arith::DivUIOp::create(ib, loc, idx, cIndex(ib, loc, kT));
          Value col = arith::RemUIOp::create(ib, loc, idx, cIndex(ib, loc, kT));
          Value global = globalRow(ib, loop, row);
          Value kCoord = arith::AddIOp::create(ib, loc, kBase, col);
          Value v = operandValue(ib, f, coords, global, loop, extent, kCoord);
          memref::StoreOp::create(ib, loc, v, lds, {buffer, row, col});
        };
        if (elements % threads == 0) {
          body(fb);
        } else {
          auto guard = scf::IfOp::create(fb, loc,
                                         lessThan(fb, loc, idx, elements),
                                         /*withElseRegion=*/false);
          OpBuilder gb = OpBuilder::atBlockTerminator(guard.thenBlock());
          body(gb);
        }
      };
      if (stagedA)
        stageOne(ldsA, kernel.a, wgM, mL, extM);
      if (stagedB)
        stageOne(ldsB, kernel.b, wgN, nL, extN);
    };

    // The MMA work of one step on the staged tiles (or, unstaged, on
    // fragments read from global memory).
    auto compute = [&](OpBuilder &outer, Value step, Value buffer,
                       SmallVector<Value> accs) {
      // Unstaged fragments are read at the step's loop coordinates.
      std::pair<SmallVector<Value>, Value> at = stepCoords(outer, step);
      SmallVector<Value> &coords = at.first;
      Value kBase = coords[kL];
      // A skipped step leaves the accumulators as they are.
      OpBuilder cb = outer;
      scf::IfOp guard;
      if (at.second) {
        guard = scf::IfOp::create(outer, loc, ValueRange(accs).getTypes(),
                                  at.second, /*withElseRegion=*/true);
        OpBuilder eb = OpBuilder::atBlockEnd(guard.elseBlock());
        scf::YieldOp::create(eb, loc, accs);
        cb = OpBuilder::atBlockEnd(guard.thenBlock());
      }
      for (int64_t kk = 0; kk < kT / mma.k; ++kk) {
        auto fragment = [&](bool isA, int64_t tile) -> Value {
          auto [row0, col0] = isA ? mma.aCoord<AffineExpr>(
                                        getAffineDimExpr(0, ctx), 0)
                                  : mma.bCoord<AffineExpr>(
                                        getAffineDimExpr(0, ctx), 0);
          // A: (row in M, col in K); B: (row in K, col in N).
          AffineExpr mn = isA ? row0 : col0;
          AffineExpr kExpr = isA ? col0 : row0;
          Value mnOff = affine::AffineApplyOp::create(
              cb, loc, AffineMap::get(1, 0, mn), lane);
          Value kOff = affine::AffineApplyOp::create(
              cb, loc, AffineMap::get(1, 0, kExpr), lane);
          int64_t tileSize = isA ? mma.m : mma.n;
          Value row = arith::AddIOp::create(
              cb, loc, isA ? sgRowM : sgRowN,
              addConst(cb, loc, mnOff, tile * tileSize));
          Value col = addConst(cb, loc, kOff, kk * mma.k);
          VectorType type = isA ? aType : bType;
          int64_t items = isA ? mma.aItems : mma.bItems;
          if (isA ? stagedA : stagedB)
            return vector::LoadOp::create(cb, loc, type, isA ? ldsA : ldsB,
                                          {buffer, row, col});
          SmallVector<Value> elems;
          int64_t loop = isA ? mL : nL;
          for (int64_t i = 0; i < items; ++i)
            elems.push_back(operandValue(
                cb, isA ? kernel.a : kernel.b, coords,
                globalRow(cb, loop, row), loop, isA ? extM : extN,
                arith::AddIOp::create(cb, loc, kBase,
                                      addConst(cb, loc, col, i))));
          return vector::FromElementsOp::create(cb, loc, type, elems);
        };
        SmallVector<Value> aFrags, bFrags;
        for (int64_t i = 0; i < tilesM; ++i)
          aFrags.push_back(fragment(true, i));
        for (int64_t j = 0; j < tilesN; ++j)
          bFrags.push_back(fragment(false, j));
        for (int64_t i = 0; i < tilesM; ++i)
          for (int64_t j = 0; j < tilesN; ++j) {
            Value &c = accs[i * tilesN + j];
            c = createMMAOp(cb, loc, mma, aFrags[i], bFrags[j], c);
          }
      }
      if (!guard)
        return accs;
      scf::YieldOp::create(cb, loc, accs);
      return SmallVector<Value>(guard.getResults());
    };

    SmallVector<Value> initAccs(
        tilesM * tilesN,
        vector::BroadcastOp::create(b, loc, accType, kernel.initValue));
    Value one = cIndex(b, loc, 1);
    Value stepsV = cIndex(b, loc, numSteps);
    SmallVector<Value> finalAccs;
    if (staged && depth >= 2) {
      stage(b, zeroIdx, zeroIdx);
      gpu::BarrierOp::create(b, loc);
      auto loop = scf::ForOp::create(
          b, loc, zeroIdx, stepsV, one, initAccs,
          [&](OpBuilder &lb, Location, Value s, ValueRange iterArgs) {
            Value next = arith::AddIOp::create(lb, loc, s, one);
            Value two = cIndex(lb, loc, 2);
            auto prefetch = scf::IfOp::create(
                lb, loc,
                arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, next,
                                      stepsV),
                /*withElseRegion=*/false);
            OpBuilder pb = OpBuilder::atBlockTerminator(prefetch.thenBlock());
            stage(pb, next, arith::RemUIOp::create(pb, loc, next, two));
            SmallVector<Value> accs =
                compute(lb, s, arith::RemUIOp::create(lb, loc, s, two),
                        SmallVector<Value>(iterArgs));
            gpu::BarrierOp::create(lb, loc);
            scf::YieldOp::create(lb, loc, accs);
          });
      finalAccs = loop.getResults();
    } else {
      auto loop = scf::ForOp::create(
          b, loc, zeroIdx, stepsV, one, initAccs,
          [&](OpBuilder &lb, Location, Value s, ValueRange iterArgs) {
            if (staged) {
              gpu::BarrierOp::create(lb, loc);
              stage(lb, s, zeroIdx);
              gpu::BarrierOp::create(lb, loc);
            }
            scf::YieldOp::create(
                lb, loc,
                compute(lb, s, zeroIdx, SmallVector<Value>(iterArgs)));
          });
      finalAccs = loop.getResults();
    }

    // Epilogue: each lane's D elements inside the problem.
    for (int64_t i = 0; i < tilesM; ++i)
      for (int64_t j = 0; j < tilesN; ++j)
        for (int64_t v = 0; v < mma.cItems; ++v) {
          auto [r, c] = mma.cCoord<AffineExpr>(getAffineDimExpr(0, ctx), v);
          Value rOff = affine::AffineApplyOp::create(
              b, loc, AffineMap::get(1, 0, r + i * mma.m), lane);
          Value cOff = affine::AffineApplyOp::create(
              b, loc, AffineMap::get(1, 0, c + j * mma.n), lane);
          Value mg =
              globalRow(b, mL, arith::AddIOp::create(b, loc, sgRowM, rOff));
          Value ng =
              globalRow(b, nL, arith::AddIOp::create(b, loc, sgRowN, cOff));
          auto guard = scf::IfOp::create(
              b, loc,
              andAll(b, loc,
                     {lessThan(b, loc, mg, extM), lessThan(b, loc, ng, extN)}),
              /*withElseRegion=*/false);
          OpBuilder gb = OpBuilder::atBlockTerminator(guard.thenBlock());
          SmallVector<Value> coords(base.begin(), base.end());
          coords[mL] = mg;
          coords[nL] = ng;
          for (Value &cv : coords)
            if (!cv)
              cv = zeroIdx;
          Value value =
              vector::ExtractOp::create(gb, loc, finalAccs[i * tilesN + j], v);
          if (failed(emitEpilogue(gb, loc, kernel, value, coords)))
            return failure();
        }

    // The kernel replaces the fill, the accumulation and the epilogues.
    SmallVector<Operation *> dead = {kernel.fill, acc};
    for (linalg::GenericOp e : kernel.epilogues)
      dead.push_back(e);
    for (Operation *op : dead)
      op->erase();
    // Reshapes first, then deallocs and allocs.
    SmallVector<Value> buffers = kernel.internalBuffers;
    llvm::sort(buffers, [](Value x, Value y) {
      return y.getDefiningOp()->isBeforeInBlock(x.getDefiningOp());
    });
    for (Value buf : buffers) {
      for (Operation *user : llvm::make_early_inc_range(buf.getUsers()))
        user->erase(); // deallocs
      buf.getDefiningOp()->erase();
    }
    return success();
  }

  /// Stores the kernel's outputs for the accumulated `value` at the
  /// accumulation's loop coordinates `coords`, through the epilogues.
  LogicalResult emitEpilogue(OpBuilder &b, Location loc, MMAKernel &kernel,
                             Value value, ArrayRef<Value> coords) {
    linalg::GenericOp acc = kernel.acc;
    OpOperand *accInit = acc.getDpsInitOperand(0);
    // Values held in registers per buffer, with the indices they stand for.
    llvm::DenseMap<Value, std::pair<Value, SmallVector<Value>>> held;
    Value accBuf = accInit->get();
    SmallVector<Value> accIdx =
        applyMap(b, loc, acc.getMatchingIndexingMap(accInit), coords);
    hold(b, loc, held, accBuf, value, accIdx);
    if (!llvm::is_contained(kernel.internalBuffers, accBuf))
      memref::StoreOp::create(b, loc, value, accBuf, accIdx);
    for (linalg::GenericOp e : kernel.epilogues) {
      // The epilogue's loop coordinates, from a held input's indices.
      SmallVector<Value> loops(e.getNumLoops());
      for (OpOperand *input : e.getDpsInputOperands()) {
        auto it = held.find(input->get());
        if (it == held.end())
          continue;
        AffineMap map = e.getMatchingIndexingMap(input);
        for (auto [r, expr] : llvm::enumerate(map.getResults()))
          loops[cast<AffineDimExpr>(expr).getPosition()] = it->second.second[r];
        break;
      }
      IRMapping mapping;
      Block *body = e.getBody();
      for (OpOperand &operand : e->getOpOperands()) {
        BlockArgument arg = body->getArgument(operand.getOperandNumber());
        if (arg.use_empty())
          continue;
        auto it = held.find(operand.get());
        if (e.isDpsInput(&operand) && it != held.end()) {
          mapping.map(arg, it->second.first);
          continue;
        }
        mapping.map(arg, memref::LoadOp::create(
                             b, loc, operand.get(),
                             applyMap(b, loc, e.getMatchingIndexingMap(&operand),
                                      loops)));
      }
      for (Operation &op : body->without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(op)) {
          mapping.map(index.getResult(), loops[index.getDim()]);
          continue;
        }
        b.clone(op, mapping);
      }
      for (auto [init, yielded] :
           llvm::zip(e.getDpsInitsMutable(),
                     body->getTerminator()->getOperands())) {
        Value result = mapping.lookupOrDefault(yielded);
        SmallVector<Value> idx =
            applyMap(b, loc, e.getMatchingIndexingMap(&init), loops);
        if (!llvm::is_contained(kernel.internalBuffers, init.get()))
          memref::StoreOp::create(b, loc, result, init.get(), idx);
        hold(b, loc, held, init.get(), result, std::move(idx));
      }
    }
    return success();
  }
};

} // namespace
