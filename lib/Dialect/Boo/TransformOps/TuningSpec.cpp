//===- TuningSpec.cpp - Tuning specs for boo-select-lowering-config -------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Problem signatures, `transform.boo.match.problem`, and loading/applying a
// tuning spec (a transform dialect library, as IREE's tuning specs are).
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/TransformOps/TuningSpec.h"

#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Dialect/Boo/IR/BooOps.h"
#include "Boo/Dialect/Boo/IR/ElementTypes.h"
#include "Boo/Dialect/Boo/IR/ProblemNames.h"
#include "Boo/Dialect/Boo/TransformOps/TuningSpec.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include <cstdlib>
#include <optional>

using namespace mlir;
using namespace mlir::boo;

#define GET_OP_CLASSES
#include "Boo/Dialect/Boo/TransformOps/BooTransformOps.cpp.inc"

// kDefaultTuningSpec: DefaultTuningSpec.mlir, embedded at build time.
#include "DefaultTuningSpec.inc"

//===----------------------------------------------------------------------===//
// Problem signatures
//===----------------------------------------------------------------------===//

namespace {
/// The element type of shaped value `v`; problems of other types have no
/// name (and match no rule).
std::optional<ElementType> elementTypeOf(Value v) {
  return getElementTypeOf(cast<ShapedType>(v.getType()).getElementType());
}

std::string layoutOf(std::optional<StringRef> attr, LayoutKind kind,
                     int64_t spatialRank) {
  if (attr && !attr->empty())
    return attr->str();
  return defaultLayout(kind, spatialRank);
}

template <typename OpTy>
std::string convSignature(OpTy op, StringRef mode, bool bias) {
  std::optional<ElementType> type = elementTypeOf(op->getResult(0));
  if (!type)
    return "";
  ConvGeometry g = op.getGeometry();
  int64_t r = g.spatialRank;
  return getConvProblemName(
      *type, g, layoutOf(op.getInputLayout(), LayoutKind::Activation, r),
      layoutOf(op.getFilterLayout(), LayoutKind::Filter, r),
      layoutOf(op.getOutputLayout(), LayoutKind::Activation, r), mode, bias);
}

std::string layerNormSignature(Value x, int64_t normalizedRank, StringRef mode,
                               bool weight, bool bias) {
  std::optional<ElementType> type = elementTypeOf(x);
  if (!type)
    return "";
  return getLayerNormProblemName(*type,
                                 cast<ShapedType>(x.getType()).getShape(),
                                 normalizedRank, mode, weight, bias);
}

/// IREE BOO's layer-norm backward modes, from the results that are used.
StringRef layerNormBwdMode(LayerNormBwdOp op) {
  bool dx = !op.getDx().use_empty(), dw = !op.getDweight().use_empty(),
       db = !op.getDbias().use_empty();
  if (dx && !dw && !db)
    return "input_backward";
  if (!dx && dw && !db)
    return "weight_backward";
  if (!dx && !dw && db)
    return "bias_backward";
  return "full_backward";
}

/// The short name of an epilogue op in a fusion signature.
std::string epilogueName(Operation *op) {
  if (auto act = dyn_cast<ActivationOp>(op))
    return stringifyActivationKind(act.getKind()).str();
  return op->getName().stripDialect().str();
}

std::string opSignature(Operation *op) {
  return TypeSwitch<Operation *, std::string>(op)
      .Case([](ConvOp o) {
        return convSignature(o, "forward", static_cast<bool>(o.getBias()));
      })
      .Case([](ConvBwdDataOp o) {
        return convSignature(o, "input_backward", false);
      })
      .Case([](ConvBwdWeightOp o) {
        return convSignature(o, "weight_backward", false);
      })
      .Case([](ConvBwdBiasOp o) -> std::string {
        auto dy = o.getGradOutput().getType();
        std::optional<ElementType> type = elementTypeOf(o.getGradOutput());
        if (!type)
          return "";
        return getConvBiasBackwardName(*type, dy.getShape(),
                                       layoutOf(o.getOutputLayout(),
                                                LayoutKind::Activation,
                                                dy.getRank() - 2));
      })
      .Case([](MatmulOp o) -> std::string {
        std::optional<ElementType> type = elementTypeOf(o.getOutput());
        FailureOr<MatmulSizes> s = getMatmulSizes(o);
        if (!type || failed(s))
          return "";
        return getGemmProblemName(*type, "forward", s->batch, s->m, s->k,
                                  s->n, o.getTransposeLhs(),
                                  o.getTransposeRhs(),
                                  o.getAlpha().convertToDouble() != 1.0,
                                  static_cast<bool>(o.getBias()));
      })
      .Case([](LayerNormOp o) {
        return layerNormSignature(o.getX(), o.getNormalizedRank(), "forward",
                                  static_cast<bool>(o.getWeight()),
                                  static_cast<bool>(o.getBias()));
      })
      .Case([](LayerNormBwdOp o) {
        return layerNormSignature(o.getX(), o.getNormalizedRank(),
                                  layerNormBwdMode(o),
                                  static_cast<bool>(o.getWeight()), false);
      })
      .Case<ActivationOp, AddOp, MulOp>([](Operation *o) -> std::string {
        // <kind or add/mul>_<dtype>[_<shape>][_c<channel_dim>]
        auto in = cast<RankedTensorType>(o->getOperand(0).getType());
        std::optional<ElementType> type = elementTypeOf(o->getOperand(0));
        if (!type)
          return "";
        SmallVector<std::string> items = {epilogueName(o),
                                          getTorchTypeName(*type)};
        if (in.getRank() > 0)
          items.push_back(joinShape(in.getShape()));
        std::string s = llvm::join(items, "_");
        if (auto cd = o->getAttrOfType<IntegerAttr>("channel_dim"))
          s += "_c" + std::to_string(cd.getInt());
        return s;
      })
      .Default([](Operation *) { return std::string(); });
}
} // namespace

std::string mlir::boo::getProblemSignature(Operation *kernel) {
  if (!isKernel(kernel))
    return "";
  auto fusion = dyn_cast<FusionOp>(kernel);
  if (!fusion)
    return opSignature(kernel);
  Operation *anchor = fusion.getAnchor();
  if (!anchor)
    return "";
  std::string s = opSignature(anchor);
  for (Operation &op : fusion.getBody().front().without_terminator())
    if (&op != anchor)
      s += "+" + epilogueName(&op);
  return s;
}

//===----------------------------------------------------------------------===//
// transform.boo.match.problem
//===----------------------------------------------------------------------===//

namespace {
FailureOr<llvm::GlobPattern> makeGlob(StringRef pattern, std::string &error) {
  // `{a,b}` alternatives are allowed (up to 64 expanded patterns).
  llvm::Expected<llvm::GlobPattern> glob =
      llvm::GlobPattern::create(pattern, /*MaxSubPatterns=*/64);
  if (!glob) {
    error = llvm::toString(glob.takeError());
    return failure();
  }
  return std::move(*glob);
}
} // namespace

LogicalResult MatchProblemOp::verify() {
  std::string error;
  if (failed(makeGlob(getPattern(), error)))
    return emitOpError("invalid pattern '") << getPattern() << "': " << error;
  if (getChip() && failed(makeGlob(*getChip(), error)))
    return emitOpError("invalid chip pattern '")
           << *getChip() << "': " << error;
  return success();
}

DiagnosedSilenceableFailure
MatchProblemOp::matchOperation(Operation *current,
                               transform::TransformResults &results,
                               transform::TransformState &state) {
  if (!isKernel(current))
    return emitSilenceableError() << "not a Boo kernel";
  std::string error;
  FailureOr<llvm::GlobPattern> glob = makeGlob(getPattern(), error);
  std::string signature = getProblemSignature(current);
  if (failed(glob) || !glob->match(signature))
    return emitSilenceableError()
           << "problem '" << signature << "' does not match";
  if (!getChip())
    return DiagnosedSilenceableFailure::success();
  FailureOr<llvm::GlobPattern> chipGlob = makeGlob(*getChip(), error);
  for (Operation *p = current->getParentOp(); p; p = p->getParentOp()) {
    if (auto target = p->getAttrOfType<TargetAttr>(kTargetAttrName)) {
      if (succeeded(chipGlob) && chipGlob->match(target.getChip()))
        return DiagnosedSilenceableFailure::success();
      break;
    }
  }
  return emitSilenceableError() << "target chip does not match";
}

namespace {
class BooTransformExtension
    : public transform::TransformDialectExtension<BooTransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BooTransformExtension)
  using Base::Base;

  void init() {
    declareDependentDialect<BooDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "Boo/Dialect/Boo/TransformOps/BooTransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mlir::boo::registerBooTransformExtension(DialectRegistry &registry) {
  registry.addExtensions<BooTransformExtension>();
}

//===----------------------------------------------------------------------===//
// Loading and applying a spec
//===----------------------------------------------------------------------===//

/// The spec the pipelines use for their `tuning-spec` option: the option,
/// else BOO_TUNING_SPEC_PATH; "" for the embedded default spec, nullopt
/// when specs are disabled (the variable set but empty).
static std::optional<std::string> resolveTuningSpecPath(StringRef optionPath) {
  if (!optionPath.empty())
    return optionPath.str();
  if (const char *env = std::getenv(kTuningSpecEnvVar.data())) {
    if (*env == '\0')
      return std::nullopt;
    return std::string(env);
  }
  return std::string();
}

bool mlir::boo::getTuningSpecIdentity(StringRef optionPath,
                                      std::string &identity,
                                      std::string &error) {
  std::optional<std::string> resolved = resolveTuningSpecPath(optionPath);
  if (!resolved) {
    identity = "none";
    return true;
  }
  const std::string &path = *resolved;
  auto hash = [](StringRef bytes) {
    return llvm::toHex(llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(bytes)),
                       /*LowerCase=*/true);
  };
  if (path.empty()) {
    identity = "default:" + hash(kDefaultTuningSpec);
    return true;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer) {
    error = "cannot open tuning spec '" + path +
            "': " + buffer.getError().message();
    return false;
  }
  identity = "file:" + hash((*buffer)->getBuffer());
  return true;
}

FailureOr<TuningSpec> mlir::boo::loadTuningSpec(MLIRContext *ctx,
                                                StringRef optionPath,
                                                Location loc) {
  TuningSpec spec;
  std::optional<std::string> resolved = resolveTuningSpecPath(optionPath);
  if (!resolved)
    return spec; // Set but empty: tuning specs are disabled.
  const std::string &path = *resolved;
  ParserConfig config(ctx);
  if (path.empty()) {
    spec.name = "<default tuning spec>";
    spec.module =
        parseSourceString<ModuleOp>(kDefaultTuningSpec, config, spec.name);
  } else {
    spec.name = path;
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buffer)
      return emitError(loc) << "cannot open tuning spec '" << path
                            << "': " << buffer.getError().message();
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
    spec.module = parseSourceFile<ModuleOp>(sourceMgr, config);
  }
  if (!spec.module)
    return emitError(loc) << "failed to parse tuning spec '" << spec.name
                          << "'";
  auto entry = dyn_cast_or_null<transform::NamedSequenceOp>(
      SymbolTable::lookupSymbolIn(*spec.module, kTuningSpecEntryPoint));
  if (!entry)
    return emitError(loc) << "tuning spec '" << spec.name
                          << "' has no transform.named_sequence @"
                          << kTuningSpecEntryPoint;
  return spec;
}

LogicalResult mlir::boo::applyTuningSpec(ModuleOp payload,
                                         const TuningSpec &spec) {
  Operation *entry =
      SymbolTable::lookupSymbolIn(*spec.module, kTuningSpecEntryPoint);
  if (failed(transform::applyTransformNamedSequence(
          payload, entry, *spec.module, transform::TransformOptions())))
    return payload.emitError()
           << "applying tuning spec '" << spec.name << "' failed";
  return success();
}
