//===- ModuleArtifact.cpp - Compile a module into one artifact ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Each target compiles its own clone of the module:
//
//   cpu         boo-to-llvm-cpu, an entry wrapper per function
//               (`void boo_entry_<f>(void **args)`), LLVM IR at -O3 for the
//               host CPU, an object file, `ld -shared` -> one shared object
//               (CPUTarget.cpp);
//   gfxNNN      boo-to-rocdl -> gpu.binary code objects (one per kernel) and
//               host functions made of gpu.alloc, views and gpu.launch_func,
//               which become the manifest's scratch buffers and launches
//               (ROCDLTarget.cpp, HostFunctionReader.cpp);
//   emu:gfxNNN  boo-to-rocdl's kernels as host functions of one work-item,
//               one shared object, launches read as for gfxNNN
//               (EmuTarget.cpp).
//
// The code objects and the manifest are written with the runtime's own
// serializer (runtime/include/boo/ModuleFormat.h).
//
//===----------------------------------------------------------------------===//

#include "ArtifactTargets.h"
#include "Boo/Dialect/Boo/IR/ElementTypes.h"
#include "Boo/Target/ChipInfo.h"
#include "boo/ModuleFormat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringExtras.h"

#include <set>

using namespace mlir;
using namespace mlir::boo;

namespace {

/// Collects diagnostics as "file:line:col: error: message" lines.
class DiagnosticCollector : public ScopedDiagnosticHandler {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : ScopedDiagnosticHandler(ctx) {
    setHandler([this](Diagnostic &diag) {
      append(diag);
      for (Diagnostic &note : diag.getNotes())
        append(note);
      return success();
    });
  }
  /// The diagnostics, one per line, without the final newline.
  std::string str() const { return StringRef(text).rtrim().str(); }

private:
  void append(Diagnostic &diag) {
    llvm::raw_string_ostream os(text);
    if (auto fileLoc = diag.getLocation()->findInstanceOf<FileLineColLoc>())
      os << fileLoc.getFilename().getValue() << ':' << fileLoc.getLine() << ':'
         << fileLoc.getColumn() << ": ";
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << diag.str() << '\n';
  }
  std::string text;
};

LogicalResult getTensorDesc(Type type, std::string name, const Twine &what,
                            rt::TensorDesc &desc, std::string &error) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  std::optional<ElementType> dtype;
  if (tensorType)
    dtype = getElementTypeOf(tensorType.getElementType());
  if (!tensorType || !tensorType.hasStaticShape() || !dtype ||
      tensorType.getEncoding()) {
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    os << type;
    error = what.str() + " has type " + typeText +
            "; compiled modules take statically shaped tensors of f32, f16, "
            "bf16, f64, i32, i8 or i64";
    return failure();
  }
  desc.name = std::move(name);
  desc.dtype = *dtype;
  desc.dims.assign(tensorType.getShape().begin(), tensorType.getShape().end());
  return success();
}

LogicalResult getSignatures(ModuleOp module,
                            std::vector<FunctionSignature> &signatures,
                            std::string &error) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    FunctionSignature signature;
    signature.name = func.getSymName().str();
    FunctionType type = func.getFunctionType();
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      std::string name;
      if (auto attr = func.getArgAttrOfType<StringAttr>(i, "boo.name"))
        name = attr.str();
      else if (auto loc = dyn_cast<NameLoc>(func.getArgument(i).getLoc()))
        name = loc.getName().str();
      rt::TensorDesc desc;
      if (failed(getTensorDesc(input, name,
                               "input " + Twine(i) + " of @" + signature.name,
                               desc, error)))
        return failure();
      signature.inputs.push_back(std::move(desc));
    }
    for (auto [i, result] : llvm::enumerate(type.getResults())) {
      std::string name;
      if (auto attr = func.getResultAttrOfType<StringAttr>(i, "boo.name"))
        name = attr.str();
      rt::TensorDesc desc;
      if (failed(getTensorDesc(result, name,
                               "result " + Twine(i) + " of @" + signature.name,
                               desc, error)))
        return failure();
      signature.results.push_back(std::move(desc));
    }
    signatures.push_back(std::move(signature));
  }
  if (signatures.empty()) {
    error = "the module has no public function with a body";
    return failure();
  }
  return success();
}

} // namespace

/// Runs `pm` (configured by `options.configurePassManager`) on `module`; on
/// failure sets `error` to `what` and the diagnostics.
LogicalResult mlir::boo::runPipeline(PassManager &pm, ModuleOp module,
                                     const Twine &what,
                                     const ArtifactOptions &options,
                                     std::string &error) {
  MLIRContext *ctx = module.getContext();
  DiagnosticCollector diagnostics(ctx);
  if (options.configurePassManager &&
      failed(options.configurePassManager(pm))) {
    error = what.str() + ": invalid pass manager options\n" + diagnostics.str();
    return failure();
  }
  // A failing pass's "see current operation" note can hold the whole module.
  bool printOp = ctx->shouldPrintOpOnDiagnostic();
  ctx->printOpOnDiagnostic(false);
  LogicalResult result = pm.run(module);
  ctx->printOpOnDiagnostic(printOp);
  if (failed(result))
    error = what.str() + ":\n" + diagnostics.str();
  return result;
}

std::vector<std::string> mlir::boo::getPublicFunctionNames(ModuleOp module) {
  std::vector<std::string> names;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      names.push_back(func.getSymName().str());
  return names;
}

std::vector<std::string> mlir::boo::getArtifactTargetNames() {
  std::vector<std::string> names = {"cpu"};
  for (const ChipInfo &chip : getSupportedChips())
    names.push_back(chip.name.str());
  for (const ChipInfo &chip : getSupportedChips())
    names.push_back(("emu:" + chip.name).str());
  return names;
}

bool mlir::boo::compileModuleArtifact(ModuleOp module, const ArtifactOptions &options,
                                std::string &bytes, std::string &error) {
  error.clear();
  if (options.targets.empty()) {
    error = "no target given; targets: " +
            llvm::join(getArtifactTargetNames(), ", ");
    return false;
  }
  std::set<std::string> seen;
  for (const std::string &target : options.targets) {
    if (!seen.insert(target).second) {
      error = "target '" + target + "' is given twice";
      return false;
    }
    StringRef chip = StringRef(target);
    chip.consume_front("emu:");
    if (target != "cpu" && !lookupChip(chip)) {
      error = "unknown target '" + target +
              "'; targets: " + llvm::join(getArtifactTargetNames(), ", ");
      return false;
    }
  }

  std::vector<FunctionSignature> signatures;
  if (failed(getSignatures(module, signatures, error)))
    return false;
  rt::ModuleDesc desc;
  desc.producer = options.producer;
  for (const FunctionSignature &signature : signatures) {
    rt::FunctionDesc function;
    function.name = signature.name;
    function.inputs = signature.inputs;
    function.results = signature.results;
    desc.functions.push_back(std::move(function));
  }
  for (const std::string &target : options.targets) {
    StringRef chip = target;
    LogicalResult result =
        target == "cpu"
            ? compileForCPU(module, signatures, options, desc, error)
        : chip.consume_front("emu:")
            ? compileForEmu(module, chip, signatures, options, desc, error)
            : compileForChip(module, target, signatures, options, desc, error);
    if (failed(result))
      return false;
  }
  if (!rt::serializeModule(desc, bytes, error)) {
    error = "cannot write the module: " + error;
    return false;
  }
  return true;
}
