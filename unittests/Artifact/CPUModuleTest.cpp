//===- CPUModuleTest.cpp - Compiled modules on the runtime's CPU ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The one CPU path: small linalg-on-tensors and Boo functions compiled into
// a module (compileModuleArtifact, target "cpu") and run on the runtime's
// cpu device (RuntimeSession), checked against plain C++ loops accumulating
// in double.
//
//===----------------------------------------------------------------------===//

#include "Boo/Artifact/ModuleArtifact.h"
#include "Boo/InitAll.h"
#include "Boo/Runner/RuntimeSession.h"
#include "Boo/Runner/TensorIO.h"
#include "boo_runtime.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::boo;

namespace {

constexpr const char *kAddF32 = R"mlir(
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32> {boo.name = "bias"})
    -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>)
      outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
)mlir";

/// C = A * B for MxK and KxN.
std::string matmulModule(int64_t m, int64_t n, int64_t k, StringRef type) {
  std::string a = "tensor<" + std::to_string(m) + "x" + std::to_string(k) +
                  "x" + type.str() + ">";
  std::string b = "tensor<" + std::to_string(k) + "x" + std::to_string(n) +
                  "x" + type.str() + ">";
  std::string c = "tensor<" + std::to_string(m) + "x" + std::to_string(n) +
                  "x" + type.str() + ">";
  return "func.func @matmul(%a: " + a + ", %b: " + b + ") -> " + c +
         " {\n"
         "  %z = arith.constant 0.0 : " +
         type.str() +
         "\n"
         "  %e = tensor.empty() : " +
         c +
         "\n"
         "  %f = linalg.fill ins(%z : " +
         type.str() + ") outs(%e : " + c + ") -> " + c +
         "\n"
         "  %r = linalg.matmul ins(%a, %b : " +
         a + ", " + b + ") outs(%f : " + c + ") -> " + c +
         "\n"
         "  return %r : " +
         c + "\n}\n";
}

/// An elementwise binary op on `shape` (e.g. "4x5") of `type`.
std::string elementwiseModule(StringRef shape, StringRef type, StringRef op) {
  std::string t = "tensor<" + shape.str() + "x" + type.str() + ">";
  return "#map = affine_map<(d0, d1) -> (d0, d1)>\n"
         "func.func @f(%a: " +
         t + ", %b: " + t + ") -> " + t +
         " {\n"
         "  %e = tensor.empty() : " +
         t +
         "\n"
         "  %r = linalg.generic {indexing_maps = [#map, #map, #map],\n"
         "      iterator_types = [\"parallel\", \"parallel\"]}\n"
         "      ins(%a, %b : " +
         t + ", " + t + ") outs(%e : " + t +
         ") {\n"
         "  ^bb0(%x: " +
         type.str() + ", %y: " + type.str() + ", %o: " + type.str() +
         "):\n"
         "    %s = " +
         op.str() + " %x, %y : " + type.str() +
         "\n"
         "    linalg.yield %s : " +
         type.str() +
         "\n"
         "  } -> " +
         t + "\n  return %r : " + t + "\n}\n";
}

/// A function compiled for the cpu target and loaded on a cpu device.
class Compiled {
public:
  Compiled(std::unique_ptr<RuntimeSession> session, std::string bytes)
      : session(std::move(session)), bytes(std::move(bytes)) {}
  const std::string &getFunctionName() const {
    return session->getFunctionName();
  }
  const std::vector<TensorSignature> &getInputs() const {
    return session->getInputs();
  }
  const std::vector<TensorSignature> &getResults() const {
    return session->getResults();
  }
  const std::string &getBytes() const { return bytes; }
  /// One call with `args`; `outs` gets the results.
  LogicalResult invoke(const std::vector<HostTensor> &args,
                       std::vector<HostTensor> &outs, std::string &error) {
    double milliseconds = 0;
    return success(session->setInputs(args, error) &&
                   session->invoke(milliseconds, error) &&
                   session->readResults(outs, error));
  }

private:
  std::unique_ptr<RuntimeSession> session;
  std::string bytes;
};

class CPUModuleTest : public ::testing::Test {
protected:
  CPUModuleTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }

  /// Compiles `source` for "cpu" and loads `function` (empty: the only
  /// one) on `device`; null with compileError set on failure.
  std::unique_ptr<Compiled>
  compile(StringRef source, StringRef function = "", bool vectorize = true,
          const std::string &device = "cpu",
          std::function<LogicalResult(PassManager &)> configure = nullptr) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context, "test.mlir");
    EXPECT_TRUE(module) << "cannot parse:\n" << source.str();
    if (!module)
      return nullptr;
    ArtifactOptions options;
    options.targets = {"cpu"};
    options.cpu.vectorize = vectorize;
    options.configurePassManager = std::move(configure);
    std::string bytes;
    compileError.clear();
    if (!compileModuleArtifact(*module, options, bytes, compileError))
      return nullptr;
    std::unique_ptr<RuntimeSession> session =
        RuntimeSession::open(device, compileError);
    if (!session || !session->load(bytes, function.str(), compileError))
      return nullptr;
    return std::make_unique<Compiled>(std::move(session), std::move(bytes));
  }

  HostTensor random(std::vector<int64_t> shape, ElementType type,
                    std::mt19937 &rng) {
    std::uniform_real_distribution<double> dist(-2.0, 2.0);
    HostTensor t = HostTensor::zeros(std::move(shape), type);
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.setFromDouble(i, isFloatType(type) ? dist(rng)
                                           : std::round(dist(rng) * 20));
    return t;
  }

  MLIRContext context;
  std::string compileError;
};

TEST_F(CPUModuleTest, AddF32) {
  auto executable = compile(kAddF32);
  ASSERT_TRUE(executable) << compileError;
  EXPECT_EQ(executable->getFunctionName(), "add");
  ASSERT_EQ(executable->getInputs().size(), 2u);
  EXPECT_EQ(executable->getInputs()[1].toString(), "2x3xf32");
  EXPECT_EQ(executable->getInputs()[1].name, "bias");
  ASSERT_EQ(executable->getResults().size(), 1u);
  EXPECT_EQ(executable->getResults()[0].toString(), "2x3xf32");

  HostTensor a =
      HostTensor::fromDoubles({2, 3}, ElementType::F32, {1, 2, 3, 4, 5, 6});
  HostTensor b = HostTensor::fromDoubles({2, 3}, ElementType::F32,
                                         {0.5, -2, 10, 0.25, 1e6, -6});
  std::vector<HostTensor> outs;
  std::string error;
  ASSERT_TRUE(succeeded(executable->invoke({a, b}, outs, error))) << error;
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(formatTensor(outs[0]), "2x3xf32=[1.5 0 13][4.25 1E+06 0]");
  // Calling again gives fresh outputs.
  ASSERT_TRUE(succeeded(executable->invoke({b, b}, outs, error))) << error;
  EXPECT_EQ(formatTensor(outs[0]), "2x3xf32=[1 -4 20][0.5 2E+06 -12]");
}

TEST_F(CPUModuleTest, MatmulMatchesReference) {
  std::mt19937 rng(7);
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{4, 5, 8},
                         {13, 9, 17},
                         {1, 33, 3},
                         {16, 16, 64}}) {
    for (bool vectorize : {true, false}) {
      auto executable = compile(matmulModule(m, n, k, "f32"), "", vectorize);
      ASSERT_TRUE(executable) << compileError;
      HostTensor a = random({m, k}, ElementType::F32, rng);
      HostTensor b = random({k, n}, ElementType::F32, rng);
      std::vector<HostTensor> outs;
      std::string error;
      ASSERT_TRUE(succeeded(executable->invoke({a, b}, outs, error))) << error;
      HostTensor reference = HostTensor::zeros({m, n}, ElementType::F64);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < k; ++p)
            sum += a.getAsDouble(i * k + p) * b.getAsDouble(p * n + j);
          reference.setFromDouble(i * n + j, sum);
        }
      std::string message;
      EXPECT_TRUE(
          succeeded(compareTensors(outs[0], reference, 1e-5, 1e-5, message)))
          << m << "x" << n << "x" << k << " vectorize=" << vectorize
          << " (seed 7): " << message;
    }
  }
}

TEST_F(CPUModuleTest, ElementTypes) {
  std::mt19937 rng(3);
  struct Case {
    const char *type;
    const char *op;
    ElementType elementType;
    double (*reference)(double, double);
  };
  auto add = +[](double x, double y) { return x + y; };
  auto mul = +[](double x, double y) { return x * y; };
  for (const Case &c : {Case{"f32", "arith.mulf", ElementType::F32, mul},
                        Case{"f16", "arith.addf", ElementType::F16, add},
                        Case{"bf16", "arith.addf", ElementType::BF16, add},
                        Case{"bf16", "arith.mulf", ElementType::BF16, mul},
                        Case{"f64", "arith.mulf", ElementType::F64, mul},
                        Case{"i32", "arith.muli", ElementType::I32, mul},
                        Case{"i8", "arith.addi", ElementType::I8, add}}) {
    auto executable = compile(elementwiseModule("3x7", c.type, c.op));
    ASSERT_TRUE(executable) << c.type << ": " << compileError;
    HostTensor a = random({3, 7}, c.elementType, rng);
    HostTensor b = random({3, 7}, c.elementType, rng);
    std::vector<HostTensor> outs;
    std::string error;
    ASSERT_TRUE(succeeded(executable->invoke({a, b}, outs, error))) << error;
    // The exact result rounded once to the type is what IEEE arithmetic
    // gives (f16/bf16 compute in f32, which holds these sums and products
    // exactly).
    HostTensor expected = HostTensor::zeros({3, 7}, c.elementType);
    for (int64_t i = 0; i < 21; ++i)
      expected.setFromDouble(i,
                             c.reference(a.getAsDouble(i), b.getAsDouble(i)));
    std::string message;
    EXPECT_TRUE(succeeded(compareTensors(outs[0], expected, 0, 0, message)))
        << c.type << " " << c.op << " (seed 3): " << message;
  }
}

TEST_F(CPUModuleTest, InputsAreNotWritten) {
  // Without `bufferization.writable = false` on the arguments, bufferization
  // would accumulate into %acc's buffer, i.e. the caller's input.
  constexpr const char *source = R"mlir(
#map = affine_map<(d0) -> (d0)>
func.func @accumulate(%acc: tensor<4xf32>, %x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %r = linalg.generic {indexing_maps = [#map, #map],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r, %x : tensor<4xf32>, tensor<4xf32>
}
)mlir";
  auto executable = compile(source);
  ASSERT_TRUE(executable) << compileError;
  HostTensor acc = HostTensor::fromDoubles({4}, ElementType::F32, {1, 2, 3, 4});
  HostTensor x =
      HostTensor::fromDoubles({4}, ElementType::F32, {10, 20, 30, 40});
  std::vector<HostTensor> outs;
  std::string error;
  ASSERT_TRUE(succeeded(executable->invoke({acc, x}, outs, error))) << error;
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(formatTensor(outs[0]), "4xf32=11 22 33 44");
  EXPECT_EQ(formatTensor(outs[1]), "4xf32=10 20 30 40");
  EXPECT_EQ(formatTensor(acc), "4xf32=1 2 3 4");
}

TEST_F(CPUModuleTest, ScalarAndEmptyTensors) {
  constexpr const char *source = R"mlir(
func.func @f(%a: tensor<f32>, %b: tensor<0x3xf32>) -> (tensor<f32>, tensor<0x3xf32>) {
  %c = arith.constant dense<2.0> : tensor<f32>
  %e = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<() -> ()>,
                                        affine_map<() -> ()>,
                                        affine_map<() -> ()>],
                       iterator_types = []}
      ins(%a, %c : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r, %b : tensor<f32>, tensor<0x3xf32>
}
)mlir";
  auto executable = compile(source);
  ASSERT_TRUE(executable) << compileError;
  std::vector<HostTensor> outs;
  std::string error;
  ASSERT_TRUE(succeeded(
      executable->invoke({HostTensor::fromDoubles({}, ElementType::F32, {1.25}),
                          HostTensor::zeros({0, 3}, ElementType::F32)},
                         outs, error)))
      << error;
  EXPECT_EQ(formatTensor(outs[0]), "f32=2.5");
  EXPECT_EQ(formatTensor(outs[1]), "0x3xf32=");
}

TEST_F(CPUModuleTest, ArgumentErrorsNameTheArgument) {
  auto executable = compile(kAddF32);
  ASSERT_TRUE(executable) << compileError;
  HostTensor good = HostTensor::zeros({2, 3}, ElementType::F32);
  std::vector<HostTensor> outs;
  std::string error;
  EXPECT_TRUE(failed(executable->invoke({good}, outs, error)));
  EXPECT_EQ(error, "@add takes 2 input(s), got 1");
  EXPECT_TRUE(failed(executable->invoke({good, good, good}, outs, error)));
  EXPECT_EQ(error, "@add takes 2 input(s), got 3");
  EXPECT_TRUE(failed(executable->invoke(
      {HostTensor::zeros({3, 2}, ElementType::F32), good}, outs, error)));
  EXPECT_EQ(error, "input 0: expected 2x3xf32, got 3x2xf32");
  EXPECT_TRUE(failed(executable->invoke(
      {good, HostTensor::zeros({2, 3}, ElementType::F16)}, outs, error)));
  EXPECT_EQ(error, "input 1 (bias): expected 2x3xf32, got 2x3xf16");
  HostTensor truncated = good;
  truncated.data.resize(8);
  EXPECT_TRUE(failed(executable->invoke({good, truncated}, outs, error)));
  EXPECT_EQ(error, "input 1 (bias): 2x3xf32 needs 24 bytes, the tensor "
                   "holds 8");
}

TEST_F(CPUModuleTest, FunctionSelection) {
  std::string two = std::string(kAddF32) + matmulModule(2, 2, 2, "f32") +
                    "func.func private @helper() { return }\n";
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(two, &context, "test.mlir");
  ASSERT_TRUE(module);
  EXPECT_EQ(getPublicFunctionNames(*module),
            (std::vector<std::string>{"add", "matmul"}));
  // Every public function is compiled; the session picks one.
  EXPECT_FALSE(compile(two));
  EXPECT_NE(compileError.find("2 functions"), std::string::npos)
      << compileError;
  EXPECT_FALSE(compile(two, "helper"));
  EXPECT_NE(compileError.find("helper"), std::string::npos) << compileError;
  auto executable = compile(two, "matmul");
  ASSERT_TRUE(executable) << compileError;
  EXPECT_EQ(executable->getFunctionName(), "matmul");
  EXPECT_EQ(executable->getInputs()[0].toString(), "2x2xf32");
}

TEST_F(CPUModuleTest, UnsupportedSignatures) {
  EXPECT_FALSE(compile("func.func @f(%a: tensor<?xf32>) { return }"));
  EXPECT_EQ(compileError,
            "input 0 of @f has type tensor<?xf32>; compiled modules take "
            "statically shaped tensors of f32, f16, bf16, f64, i32, i8 or i64");
  EXPECT_FALSE(compile("func.func @f(%a: f32) { return }"));
  EXPECT_FALSE(compile("func.func @f() -> tensor<2xi16> {\n"
                       "  %c = arith.constant dense<1> : tensor<2xi16>\n"
                       "  return %c : tensor<2xi16>\n}"));
  EXPECT_EQ(compileError,
            "result 0 of @f has type tensor<2xi16>; compiled modules take "
            "statically shaped tensors of f32, f16, bf16, f64, i32, i8 or i64");
}

TEST_F(CPUModuleTest, ParallelLoopsMatchSequential) {
  // A 3x3 NHWC convolution: its tiles form scf.foralls that the pipeline
  // outlines and calls through __boo_parallel_for.
  constexpr const char *source = R"mlir(
func.func @conv(%x: tensor<2x8x8x16xf32>, %w: tensor<16x3x3x16xf32>)
    -> tensor<2x6x6x16xf32> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC",
                        output_layout = "NHWC"}
      : tensor<2x8x8x16xf32>, tensor<16x3x3x16xf32> -> tensor<2x6x6x16xf32>
  return %y : tensor<2x6x6x16xf32>
}
)mlir";
  // The same module on two threads and on one (the runtime runs the
  // outlined loop bodies inline then).
  auto parallel = compile(source, "", true, "cpu:2");
  ASSERT_TRUE(parallel) << compileError;
  auto sequential = compile(source, "", true, "cpu:1");
  ASSERT_TRUE(sequential) << compileError;
  // The code calls its parallel loops through the hook the runtime sets.
  EXPECT_NE(parallel->getBytes().find("__boo_parallel_for"), std::string::npos);
  std::mt19937 rng(11);
  HostTensor x = random({2, 8, 8, 16}, ElementType::F32, rng);
  HostTensor w = random({16, 3, 3, 16}, ElementType::F32, rng);
  std::string error;
  std::vector<HostTensor> parallelOuts, sequentialOuts;
  ASSERT_TRUE(succeeded(parallel->invoke({x, w}, parallelOuts, error)))
      << error;
  ASSERT_TRUE(succeeded(sequential->invoke({x, w}, sequentialOuts, error)))
      << error;
  ASSERT_EQ(parallelOuts.size(), 1u);
  ASSERT_EQ(sequentialOuts.size(), 1u);
  // Every output element is computed by one iteration in the same order
  // either way: bitwise equal.
  EXPECT_TRUE(parallelOuts[0].data == sequentialOuts[0].data)
      << "multi-threaded and sequential results differ (seed 11)";

  // And both are right.
  HostTensor reference = HostTensor::zeros({2, 6, 6, 16}, ElementType::F64);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t oh = 0; oh < 6; ++oh)
      for (int64_t ow = 0; ow < 6; ++ow)
        for (int64_t k = 0; k < 16; ++k) {
          double sum = 0;
          for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw)
              for (int64_t c = 0; c < 16; ++c)
                sum +=
                    x.getAsDouble(((n * 8 + oh + kh) * 8 + ow + kw) * 16 + c) *
                    w.getAsDouble(((k * 3 + kh) * 3 + kw) * 16 + c);
          reference.setFromDouble(((n * 6 + oh) * 6 + ow) * 16 + k, sum);
        }
  std::string message;
  EXPECT_TRUE(succeeded(
      compareTensors(parallelOuts[0], reference, 1e-5, 1e-5, message)))
      << "seed 11: " << message;
}

/// Fails the pipeline with a diagnostic and a note at @add, like a
/// pass that meets something it cannot lower (whatever the pipeline can and
/// cannot lower today).
struct FailingPass : public PassWrapper<FailingPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FailingPass)
  void runOnOperation() override {
    getOperation().walk([](LLVM::LLVMFuncOp func) {
      if (func.getSymName() == "add")
        func.emitError("cannot lower this").attachNote() << "because";
    });
    signalPassFailure();
  }
};

TEST_F(CPUModuleTest, PipelineErrorsCarryDiagnostics) {
  // Without the op dump ("see current operation") that MLIR attaches.
  context.printOpOnDiagnostic(false);
  EXPECT_FALSE(compile(kAddF32, "", true, "cpu", [](PassManager &pm) {
    pm.addPass(std::make_unique<FailingPass>());
    return success();
  }));
  EXPECT_EQ(compileError, "cpu: boo-to-llvm-cpu failed:\n"
                          "test.mlir:3:1: error: cannot lower this\n"
                          "test.mlir:3:1: note: because");
}

TEST_F(CPUModuleTest, UnresolvedSymbolsFailAtCompileTime) {
  EXPECT_FALSE(compile(R"mlir(
func.func private @undefined_helper(tensor<2xf32>) -> tensor<2xf32>
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = func.call @undefined_helper(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)mlir"));
  EXPECT_EQ(compileError,
            "cpu: the module calls external function(s) found neither in "
            "the module nor in the C and math libraries: @undefined_helper");
}

TEST_F(CPUModuleTest, StreamedStoresMatchOrdinaryStores) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the CPU pipeline streams stores on x86-64 hosts only";
#endif
  // A layer norm whose y is written with non-temporal stores
  // (stream-min-bytes=1: boo-cpu-stream-stores) where its address is
  // 64-byte aligned, and with ordinary ones where it is not: called on
  // caller memory at an aligned address and 4 bytes past one, it must give
  // the bits of the same function compiled without streaming.
  constexpr const char *source = R"mlir(
func.func @ln(%x: tensor<64x256xf32>)
    -> (tensor<64x256xf32>, tensor<64xf32>, tensor<64xf32>) {
  %y, %m, %r = boo.layer_norm %x {epsilon = 1.0e-05 : f32,
                                  normalized_rank = 1 : i64}
      : tensor<64x256xf32> -> tensor<64x256xf32>, tensor<64xf32>,
        tensor<64xf32>
  return %y, %m, %r : tensor<64x256xf32>, tensor<64xf32>, tensor<64xf32>
}
)mlir";
  auto build = [&](int64_t streamMinBytes, std::string &bytes) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context, "test.mlir");
    ArtifactOptions options;
    options.targets = {"cpu"};
    options.cpu.streamMinBytes = streamMinBytes;
    return module &&
           compileModuleArtifact(*module, options, bytes, compileError);
  };
  std::string streamed, ordinary;
  ASSERT_TRUE(build(1, streamed)) << compileError;
  ASSERT_TRUE(build(-1, ordinary)) << compileError;
  EXPECT_TRUE(streamed != ordinary) << "stream-min-bytes=1 changed nothing";

  boo_device_t *device = nullptr;
  ASSERT_EQ(boo_device_open("cpu:2", &device), nullptr);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> x(64 * 256);
  for (float &v : x)
    v = dist(rng);
  // y at `offset` bytes past a 64-byte boundary; mean and rstd beside it.
  auto run = [&](const std::string &bytes, size_t offset,
                 std::vector<float> &y) {
    boo_module_t *module = nullptr;
    boo_function_t *function = nullptr;
    ASSERT_EQ(boo_module_load_data(device, bytes.data(), bytes.size(), &module),
              nullptr);
    ASSERT_EQ(boo_module_lookup_function(module, "ln", &function), nullptr);
    std::vector<char> storage(64 * 256 * 4 + 128);
    char *base = storage.data() +
                 (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
    std::vector<float> mean(64), rstd(64);
    int64_t xDims[] = {64, 256}, statDims[] = {64};
    boo_tensor_view_t inputs[] = {{x.data(), BOO_DTYPE_F32, 2, xDims, nullptr}};
    boo_tensor_view_t results[] = {
        {base + offset, BOO_DTYPE_F32, 2, xDims, nullptr},
        {mean.data(), BOO_DTYPE_F32, 1, statDims, nullptr},
        {rstd.data(), BOO_DTYPE_F32, 1, statDims, nullptr}};
    EXPECT_EQ(boo_function_invoke_views(function, inputs, 1, results, 3),
              nullptr);
    y.resize(64 * 256);
    std::memcpy(y.data(), base + offset, y.size() * 4);
    boo_module_free(module);
  };
  std::vector<float> expected, aligned, unaligned;
  run(ordinary, 0, expected);
  run(streamed, 0, aligned);
  run(streamed, 4, unaligned);
  EXPECT_TRUE(aligned == expected) << "streamed y at an aligned address";
  EXPECT_TRUE(unaligned == expected) << "streamed y 4 bytes past a line";
  boo_device_close(device);
}

} // namespace
