//===- CPUExecutableTest.cpp - Compile and call linalg on the CPU ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Runs small linalg-on-tensors functions through the CPU runner and checks
// them against plain C++ loops accumulating in double.
//
//===----------------------------------------------------------------------===//

#include "Boo/Runner/CPUExecutable.h"
#include "Boo/InitAll.h"
#include "Boo/Runner/TensorIO.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <atomic>
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

class CPUExecutableTest : public ::testing::Test {
protected:
  CPUExecutableTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }

  std::unique_ptr<CPUExecutable>
  compile(StringRef source, StringRef function = "", bool vectorize = true) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context, "test.mlir");
    EXPECT_TRUE(module) << "cannot parse:\n" << source.str();
    if (!module)
      return nullptr;
    CPUPipelineOptions options;
    options.vectorize = vectorize;
    std::unique_ptr<CPUExecutable> executable = CPUExecutable::compile(
        std::move(module), function, options, compileError);
    EXPECT_TRUE(executable || !compileError.empty());
    return executable;
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

TEST_F(CPUExecutableTest, AddF32) {
  auto executable = compile(kAddF32);
  ASSERT_TRUE(executable) << compileError;
  EXPECT_EQ(executable->getFunctionName(), "add");
  ASSERT_EQ(executable->getInputs().size(), 2u);
  EXPECT_EQ(executable->getInputs()[1].toString(), "2x3xf32");
  EXPECT_EQ(executable->getInputs()[1].name, "bias");
  ASSERT_EQ(executable->getResults().size(), 1u);
  EXPECT_EQ(executable->getResults()[0].toString(), "2x3xf32");
  EXPECT_GT(executable->getCompileTimes().pipeline, 0);
  EXPECT_GT(executable->getCompileTimes().jit, 0);

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

TEST_F(CPUExecutableTest, MatmulMatchesReference) {
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

TEST_F(CPUExecutableTest, ElementTypes) {
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

TEST_F(CPUExecutableTest, InputsAreNotWritten) {
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

TEST_F(CPUExecutableTest, ScalarAndEmptyTensors) {
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

TEST_F(CPUExecutableTest, ArgumentErrorsNameTheArgument) {
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

TEST_F(CPUExecutableTest, FunctionSelection) {
  std::string two = std::string(kAddF32) + matmulModule(2, 2, 2, "f32") +
                    "func.func private @helper() { return }\n";
  EXPECT_FALSE(compile(two));
  EXPECT_EQ(compileError, "the module has 2 public functions (@add, "
                          "@matmul); name the one to run");
  EXPECT_FALSE(compile(two, "helper"));
  EXPECT_EQ(compileError, "no public function @helper with a body in the "
                          "module; public functions: @add, @matmul");
  auto executable = compile(two, "matmul");
  ASSERT_TRUE(executable) << compileError;
  EXPECT_EQ(executable->getInputs()[0].toString(), "2x2xf32");
}

TEST_F(CPUExecutableTest, UnsupportedSignatures) {
  EXPECT_FALSE(compile("func.func @f(%a: tensor<?xf32>) { return }"));
  EXPECT_EQ(compileError,
            "input 0 of @f has type tensor<?xf32>; the CPU runner supports "
            "statically shaped tensors of f32, f16, bf16, f64, i32 or i8");
  EXPECT_FALSE(compile("func.func @f(%a: f32) { return }"));
  EXPECT_FALSE(compile("func.func @f() -> tensor<2xi64> {\n"
                       "  %c = arith.constant dense<1> : tensor<2xi64>\n"
                       "  return %c : tensor<2xi64>\n}"));
  EXPECT_EQ(compileError,
            "result 0 of @f has type tensor<2xi64>; the CPU runner supports "
            "statically shaped tensors of f32, f16, bf16, f64, i32 or i8");
}

/// The largest `n` and the number of calls a CountingParallelFor saw.
std::atomic<int64_t> maxParallelN{0};
std::atomic<int64_t> parallelCalls{0};

/// Forwards to the thread-pool dispatcher, counting.
void countingParallelFor(ParallelBodyFn body, void *ctx, int64_t n) {
  ++parallelCalls;
  int64_t seen = maxParallelN.load();
  while (n > seen && !maxParallelN.compare_exchange_weak(seen, n)) {
  }
  threadPoolParallelFor(body, ctx, n);
}

TEST_F(CPUExecutableTest, ParallelLoopsMatchSequential) {
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
  auto executable = compile(source);
  ASSERT_TRUE(executable) << compileError;
  ASSERT_TRUE(executable->hasParallelFor());
  std::mt19937 rng(11);
  HostTensor x = random({2, 8, 8, 16}, ElementType::F32, rng);
  HostTensor w = random({16, 3, 3, 16}, ElementType::F32, rng);
  std::string error;

  // Multi-threaded (counting the dispatches), then sequential.
  maxParallelN = 0;
  parallelCalls = 0;
  executable->setParallelFor(countingParallelFor);
  std::vector<HostTensor> parallelOuts;
  ASSERT_TRUE(succeeded(executable->invoke({x, w}, parallelOuts, error)))
      << error;
  EXPECT_GT(parallelCalls.load(), 0);
  EXPECT_GT(maxParallelN.load(), 1);

  executable->setParallelFor(nullptr);
  int64_t callsBefore = parallelCalls.load();
  std::vector<HostTensor> sequentialOuts;
  ASSERT_TRUE(succeeded(executable->invoke({x, w}, sequentialOuts, error)))
      << error;
  EXPECT_EQ(parallelCalls.load(), callsBefore);
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

TEST_F(CPUExecutableTest, ThreadPoolParallelForCoversTheRange) {
  // Every index of [0, n) exactly once, for n around the thread count.
  for (int64_t n : {0, 1, 2, 3, 7, 64, 1000}) {
    std::vector<std::atomic<int>> hits(n);
    auto body = +[](void *ctx, int64_t begin, int64_t end) {
      auto *hits = static_cast<std::vector<std::atomic<int>> *>(ctx);
      for (int64_t i = begin; i < end; ++i)
        ++(*hits)[i];
    };
    threadPoolParallelFor(body, &hits, n);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(hits[i].load(), 1) << "n = " << n << ", index " << i;
  }
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

TEST_F(CPUExecutableTest, PipelineErrorsCarryDiagnostics) {
  // Without the op dump ("see current operation") that MLIR attaches.
  context.printOpOnDiagnostic(false);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kAddF32, &context, "test.mlir");
  ASSERT_TRUE(module);
  CPUCompileDebugOptions debugOptions;
  debugOptions.configurePassManager = [](PassManager &pm) {
    pm.addPass(std::make_unique<FailingPass>());
    return success();
  };
  EXPECT_FALSE(CPUExecutable::compile(std::move(module), "", {}, debugOptions,
                                      compileError));
  EXPECT_EQ(compileError, "failed to lower @add to the LLVM dialect:\n"
                          "test.mlir:3:1: error: cannot lower this\n"
                          "test.mlir:3:1: note: because");
}

TEST_F(CPUExecutableTest, UnresolvedSymbolsFailAtCompileTime) {
  EXPECT_FALSE(compile(R"mlir(
func.func private @undefined_helper(tensor<2xf32>) -> tensor<2xf32>
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = func.call @undefined_helper(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)mlir"));
  EXPECT_EQ(compileError,
            "JIT compilation of @f failed: the module calls external "
            "function(s) found neither in the module nor in the process: "
            "@undefined_helper");
}

} // namespace
