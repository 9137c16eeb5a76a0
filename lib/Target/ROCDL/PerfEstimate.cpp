//===- PerfEstimate.cpp - Kernel speed without a GPU ----------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The roofline of docs/PerfModel.md: the estimate of a launch is the largest
// of its MMA time at the chip's peak, its compulsory bytes over the memory
// bandwidth, its global requests over the caches' delivery rate, its LDS
// bytes over the LDS bandwidth, and its issue time (one wave instruction
// per SIMD per cycle), the compute bounds stretched when the launch has
// fewer waves than the chip has SIMDs.
//
//===----------------------------------------------------------------------===//

#include "Boo/Target/ROCDL/PerfEstimate.h"

#include "Boo/Target/ChipInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

/// Bytes per cycle per CU the caches deliver to vector memory instructions,
/// and the LDS bandwidth (docs/PerfModel.md).
constexpr double kCacheBytesPerClockPerCU = 64;
constexpr double kLdsBytesPerClockPerCU = 128;

bool isLdsInstruction(StringRef m) { return m.starts_with("ds_"); }
bool isGlobalInstruction(StringRef m) {
  return m.starts_with("global_") || m.starts_with("buffer_") ||
         m.starts_with("flat_");
}

/// One instruction of the ISA: its mnemonic and first operand.
struct Instruction {
  StringRef mnemonic, operand;
};

void addInstruction(ISAMix &mix, const Instruction &inst) {
  StringRef m = inst.mnemonic;
  ++mix.instructions;
  if (m.starts_with("v_mfma") || m.starts_with("v_wmma") ||
      m.starts_with("v_smfmac"))
    ++mix.mma;
  else if (m == "s_barrier" || m == "s_barrier_signal")
    ++mix.barriers;
  else if (m.starts_with("s_waitcnt") || m.starts_with("s_wait_"))
    ++mix.waits;
  int64_t bytes = getMemoryInstructionBytes(m);
  if (!bytes)
    return;
  bool load = m.contains("load") || m.contains("read");
  MemoryMix &target = isLdsInstruction(m)
                          ? (load ? mix.ldsReads : mix.ldsWrites)
                          : (load ? mix.globalLoads : mix.globalStores);
  ++target.instructions;
  target.bytes += bytes;
  target.narrowest =
      target.narrowest ? std::min(target.narrowest, bytes) : bytes;
}

} // namespace

int64_t mlir::boo::getMemoryInstructionBytes(StringRef m) {
  if (!isLdsInstruction(m) && !isGlobalInstruction(m))
    return 0;
  if (!(m.contains("load") || m.contains("store") || m.contains("read") ||
        m.contains("write")) ||
      m.contains("atomic") || m.contains("addtid"))
    return 0;
  // Two addresses per instruction: ds_read2_b64, ds_store_2addr_b64.
  int64_t times =
      m.contains("read2") || m.contains("write2") || m.contains("2addr") ? 2
                                                                         : 1;
  static const llvm::Regex bits("_b(8|16|32|64|96|128)(_|$)");
  static const llvm::Regex dwords("dwordx([234])");
  SmallVector<StringRef> match;
  if (dwords.match(m, &match))
    return times * 4 * std::stoll(match[1].str());
  if (m.contains("dword"))
    return times * 4;
  if (bits.match(m, &match))
    return times * std::stoll(match[1].str()) / 8;
  if (m.contains("short") || m.contains("u16") || m.contains("i16") ||
      m.contains("d16"))
    return times * 2;
  if (m.contains("byte") || m.contains("u8") || m.contains("i8"))
    return times;
  return 0;
}

ISAMix mlir::boo::analyzeISA(StringRef isa) {
  SmallVector<Instruction> code;
  llvm::StringMap<size_t> labels; // label -> index of the next instruction
  SmallVector<StringRef> lines;
  isa.split(lines, '\n');
  for (StringRef line : lines) {
    StringRef text = line.split(';').first.trim();
    if (text.empty())
      continue;
    if (text.ends_with(":")) {
      labels[text.drop_back()] = code.size();
      continue;
    }
    if (text.starts_with(".") ||
        !(line.starts_with("\t") || line.starts_with(" ")))
      continue;
    auto [mnemonic, rest] = text.split(' ');
    code.push_back({mnemonic, rest.trim().split(',').first.trim()});
  }
  // Loops: a branch back to a label before it.
  ISAMix best;
  bool found = false;
  for (size_t j = 0; j < code.size(); ++j) {
    StringRef m = code[j].mnemonic;
    if (!(m == "s_branch" || m.starts_with("s_cbranch")))
      continue;
    auto it = labels.find(code[j].operand);
    if (it == labels.end() || it->second > j)
      continue;
    ISAMix mix;
    mix.isLoop = true;
    for (size_t i = it->second; i <= j; ++i)
      addInstruction(mix, code[i]);
    // Ties go to the wider region: a rotated loop branches back to two
    // labels (its body, and its test before a block that is skipped).
    bool better = !found || mix.mma > best.mma ||
                  (mix.mma == best.mma && mix.instructions > best.instructions);
    if (better) {
      best = mix;
      found = true;
    }
  }
  if (found)
    return best;
  ISAMix whole;
  for (const Instruction &inst : code)
    addInstruction(whole, inst);
  return whole;
}

namespace {

int64_t getInt(DictionaryAttr dict, StringRef key) {
  auto attr = dict ? dict.getAs<IntegerAttr>(key) : IntegerAttr();
  if (!attr)
    return 0;
  // RDNA has no AGPRs: LLVM reports -1 (as an unsigned 32-bit value).
  int64_t v = attr.getValue().getSExtValue();
  return v < 0 || v == 0xffffffffLL ? 0 : v;
}

int64_t wavesPerSimd(const ChipInfo &chip, const KernelEstimate &e) {
  int64_t regs =
      chip.waveSize == 64 ? llvm::alignTo(e.vgprs, 4) + e.agprs : e.vgprs;
  regs = llvm::alignTo(std::max<int64_t>(regs, 1), chip.vgprGranule);
  int64_t byRegs = chip.vgprsPerSimd / regs;
  int64_t wavesPerGroup = llvm::divideCeil(e.workgroupSize, chip.waveSize);
  int64_t byLds = chip.maxWavesPerSimd;
  if (e.staticLdsBytes > 0)
    byLds =
        (chip.ldsBytes / e.staticLdsBytes) * wavesPerGroup / chip.simdsPerCU;
  return std::max<int64_t>(0, std::min({chip.maxWavesPerSimd, byRegs, byLds}));
}

/// The roofline's times and the estimate from `e`'s counts.
void computeBounds(const ChipInfo &chip, KernelEstimate &e) {
  double waves = double(e.waves);
  double clock = chip.clockGHz * 1e9;
  double simds = double(chip.computeUnits) * chip.simdsPerCU;
  // A launch with fewer waves than SIMDs leaves the rest idle.
  double busy = std::min(1.0, waves / simds);
  e.mmaSeconds = e.mmaFlops / (chip.peakMatrixTflops * 1e12 * busy);
  e.issueSeconds = e.issuedInstructions / (simds * busy * clock);
  e.memorySeconds = e.compulsoryBytes / (chip.memoryGBps * 1e9);
  // Emulated, the cache also looks up at most one line per cycle (so
  // scattered lanes cost a cycle each), and each LDS instruction takes its
  // cycles, bank conflicts included.
  double cacheCycles = e.globalBytes / kCacheBytesPerClockPerCU;
  if (e.emulated)
    cacheCycles = std::max(cacheCycles, e.globalLines);
  e.cacheSeconds = cacheCycles / (chip.computeUnits * clock);
  e.ldsSeconds =
      e.emulated
          ? e.ldsCycles / (chip.computeUnits * clock)
          : e.ldsBytes / (kLdsBytesPerClockPerCU * chip.computeUnits * clock);
  e.seconds = 0;
  e.bound = "";
  e.fractionOfPeak = 0;
  std::pair<double, StringRef> bounds[] = {{e.mmaSeconds, "mma"},
                                           {e.memorySeconds, "memory"},
                                           {e.cacheSeconds, "cache"},
                                           {e.ldsSeconds, "lds"},
                                           {e.issueSeconds, "issue"}};
  for (auto [t, name] : bounds)
    if (t > e.seconds) {
      e.seconds = t;
      e.bound = name;
    }
  if (e.seconds > 0 && e.mmaFlops > 0)
    e.fractionOfPeak = e.mmaFlops / e.seconds / (chip.peakMatrixTflops * 1e12);
}

/// Fills the launch's totals and the roofline's times.
void applyRoofline(const ChipInfo &chip, DictionaryAttr counts,
                   KernelEstimate &e) {
  double threads = double(e.workgroups) * e.workgroupSize;
  double waves = double(e.waves);
  auto perThread = [&](StringRef key) { return double(getInt(counts, key)); };
  e.mmaInstructions = perThread("mma") * waves;
  e.mmaFlops = perThread("mma_flops") * waves;
  e.globalBytes =
      (perThread("global_load_bytes") + perThread("global_store_bytes")) *
      threads;
  e.globalInstructions =
      (perThread("global_loads") + perThread("global_stores")) * waves;
  e.ldsBytes =
      (perThread("lds_read_bytes") + perThread("lds_write_bytes")) * threads;
  e.ldsInstructions =
      (perThread("lds_reads") + perThread("lds_writes")) * waves;
  e.issuedInstructions =
      (perThread("ops") + perThread("global_loads") +
       perThread("global_stores") + perThread("lds_reads") +
       perThread("lds_writes") + perThread("mma") + perThread("barriers")) *
      waves;
  e.approximate = getInt(counts, "approximate") != 0;
  computeBounds(chip, e);
}

int64_t bufferBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return 0;
  return memref.getNumElements() *
         llvm::divideCeil(memref.getElementTypeBitWidth(), 8);
}

} // namespace

void mlir::boo::applyEmulatedCounts(const ChipInfo &chip,
                                    const EmulatedCounts &counts,
                                    KernelEstimate &e) {
  if (counts.profiledWorkgroups <= 0)
    return;
  double scale = counts.workgroups / counts.profiledWorkgroups;
  e.emulated = true;
  e.emulatedWorkgroups = counts.profiledWorkgroups;
  e.mmaInstructions = counts.mmaInstructions * scale;
  e.mmaFlops = counts.mmaFlops * scale;
  e.globalInstructions = counts.globalInstructions * scale;
  e.globalBytes = counts.globalBytes * scale;
  e.globalLines = counts.globalLines * scale;
  e.ldsInstructions = counts.ldsInstructions * scale;
  e.ldsBytes = counts.ldsBytes * scale;
  e.ldsCycles = counts.ldsCycles * scale;
  e.ldsConflictFreeCycles = counts.ldsConflictFreeCycles * scale;
  computeBounds(chip, e);
}

FailureOr<std::vector<KernelEstimate>>
mlir::boo::estimateKernels(ModuleOp compiled, const ChipInfo &chip,
                           const llvm::StringMap<std::string> &isaByKernel,
                           std::string &error) {
  std::vector<KernelEstimate> estimates;
  WalkResult walk = compiled.walk([&](gpu::LaunchFuncOp launch) {
    KernelEstimate e;
    e.kernel = launch.getKernelModuleName().str();
    auto abi = launch->getAttrOfType<DictionaryAttr>("boo.kernel_abi");
    auto binary =
        compiled.lookupSymbol<gpu::BinaryOp>(launch.getKernelModuleName());
    DictionaryAttr md;
    if (binary)
      for (Attribute attr : binary.getObjects())
        if (auto object = dyn_cast<gpu::ObjectAttr>(attr);
            object && object.getKernels())
          if (auto kernel = object.getKernels().lookup(launch.getKernelName()))
            md = kernel.getMetadata();
    auto counts =
        md ? md.getAs<DictionaryAttr>("boo.op_counts") : DictionaryAttr();
    if (!abi || !counts) {
      error = "kernel '" + e.kernel +
              "' has no boo.kernel_abi or boo.op_counts: estimate the output "
              "of boo-to-rocdl";
      return WalkResult::interrupt();
    }
    auto grid = abi.getAs<DenseI64ArrayAttr>("grid");
    auto group = abi.getAs<DenseI64ArrayAttr>("workgroup");
    e.workgroups = 1;
    e.workgroupSize = 1;
    for (int64_t v : grid.asArrayRef())
      e.workgroups *= v;
    for (int64_t v : group.asArrayRef())
      e.workgroupSize *= v;
    e.waves = e.workgroups * llvm::divideCeil(e.workgroupSize, chip.waveSize);
    e.vgprs = getInt(md, "vgpr_count");
    e.agprs = getInt(md, "agpr_count");
    e.sgprs = getInt(md, "sgpr_count");
    e.staticLdsBytes = getInt(md, "group_segment_fixed_size");
    e.scratchBytes = getInt(md, "private_segment_fixed_size");
    e.wavesPerSimd = wavesPerSimd(chip, e);
    llvm::SmallPtrSet<Value, 8> buffers;
    for (Value v : launch.getKernelOperands())
      if (buffers.insert(v).second)
        e.compulsoryBytes += bufferBytes(v.getType());
    if (auto it = isaByKernel.find(e.kernel); it != isaByKernel.end())
      e.mainLoop = analyzeISA(it->second);
    applyRoofline(chip, counts, e);
    estimates.push_back(std::move(e));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return estimates;
}

void mlir::boo::printPerfReport(raw_ostream &os, const ChipInfo &chip,
                                ArrayRef<KernelEstimate> estimates) {
  os << "ESTIMATE for " << chip.name << " (" << chip.products
     << "): a roofline of Boo's compiled code, not a measurement "
        "(docs/PerfModel.md)\n";
  os << llvm::format("%-10s %8s %-7s %6s %8s %8s %8s %8s %8s %6s %5s %5s "
                     "%7s\n",
                     "kernel", "est_us", "bound", "peak%", "mma_us", "mem_us",
                     "cache_us", "lds_us", "issue_us", "waves", "vgpr", "agpr",
                     "lds_kb");
  for (auto [i, e] : llvm::enumerate(estimates)) {
    os << llvm::format(
        "k%-9zu %8.2f %-7s %6.1f %8.2f %8.2f %8.2f %8.2f %8.2f %6lld %5lld "
        "%5lld %7.1f%s\n",
        i, e.seconds * 1e6, e.bound.str().c_str(), e.fractionOfPeak * 100,
        e.mmaSeconds * 1e6, e.memorySeconds * 1e6, e.cacheSeconds * 1e6,
        e.ldsSeconds * 1e6, e.issueSeconds * 1e6,
        static_cast<long long>(e.wavesPerSimd), static_cast<long long>(e.vgprs),
        static_cast<long long>(e.agprs), e.staticLdsBytes / 1024.0,
        e.approximate ? " (approximate)" : "");
  }
  for (auto [i, e] : llvm::enumerate(estimates)) {
    const ISAMix &m = e.mainLoop;
    os << "k" << i << " = " << e.kernel << ": " << e.workgroups
       << " workgroups x " << e.workgroupSize << " threads, scratch "
       << e.scratchBytes << " B\n";
    os << llvm::format(
        "  %s: %lld instructions, %lld MMA, global loads %lld (%.1f B each), "
        "global stores %lld (%.1f B), LDS reads %lld (%.1f B), LDS writes "
        "%lld (%.1f B), %lld barriers, %lld waits\n",
        m.isLoop ? "main loop" : "kernel (no loop)",
        static_cast<long long>(m.instructions), static_cast<long long>(m.mma),
        static_cast<long long>(m.globalLoads.instructions),
        m.globalLoads.bytesPerInstruction(),
        static_cast<long long>(m.globalStores.instructions),
        m.globalStores.bytesPerInstruction(),
        static_cast<long long>(m.ldsReads.instructions),
        m.ldsReads.bytesPerInstruction(),
        static_cast<long long>(m.ldsWrites.instructions),
        m.ldsWrites.bytesPerInstruction(), static_cast<long long>(m.barriers),
        static_cast<long long>(m.waits));
    if (e.emulated)
      os << llvm::format("  executed (emulator, %.0f of %lld workgroups run): ",
                         e.emulatedWorkgroups,
                         static_cast<long long>(e.workgroups));
    else
      os << "  executed (IR counts): ";
    os << llvm::format("%.4g MMA (%.4g FLOP), %.4g global B in %.4g "
                       "instructions, %.4g LDS B in %.4g instructions, %.4g "
                       "issued; compulsory %.4g B\n",
                       e.mmaInstructions, e.mmaFlops, e.globalBytes,
                       e.globalInstructions, e.ldsBytes, e.ldsInstructions,
                       e.issuedInstructions, e.compulsoryBytes);
    if (e.emulated)
      os << llvm::format(
          "  emulated: %.4g global lines of 128 B (%.1f%% of their bytes "
          "used), %.4g LDS cycles, %.4g without bank conflicts (+%.1f%%)\n",
          e.globalLines,
          e.globalLines > 0 ? 100 * e.globalBytes / (e.globalLines * 128.0) : 0,
          e.ldsCycles, e.ldsConflictFreeCycles,
          e.ldsConflictFreeCycles > 0
              ? 100 * (e.ldsCycles / e.ldsConflictFreeCycles - 1)
              : 0);
  }
}
