//===- MIOpenNumericsTest.cpp - MIOpenDriver commands, end to end ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// MIOpenDriver command lines imported with importMIOpenCommand, compiled for
// the CPU and checked against the reference. The reference problem of each
// command is written out by hand from MIOpenDriver's flag meanings, not
// taken from the importer's parse, so that a misread flag shows up.
//
// Argument orders (docs/MIOpenImport.md): forward (input, filter[, bias]);
// backward (grad_output[, input if -F has 4][, filter if -F has 2]) ->
// (grad_input?, grad_filter?, grad_bias?); layer norm forward (x[, weight,
// bias]) -> (y, mean, rstd); layer norm -F 14 (dy, x[, weight, bias], mean,
// rstd) -> (dx[, dweight, dbias]).
//
//===----------------------------------------------------------------------===//

#include "SweepHarness.h"

#include "Boo/Import/MIOpenImport.h"
#include "Boo/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace boo;
using namespace boo::sweep;
using ref::ConvProblem;
using ref::Tensor;

namespace {

struct ConvCommand {
  const char *command;
  ElementType type;
  int direction; // MIOpen -F
  bool bias;
  ConvProblem problem;
};

/// A 2-D problem in MIOpenDriver's terms: -n -c -H -W -k -y -x -p -q -u -v
/// -l -j -g and the three layouts (the filter one in MIOpen's spelling,
/// which the reference reads as MIOpen does).
ConvProblem conv2D(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                   int64_t y, int64_t x, int64_t p, int64_t q, int64_t u,
                   int64_t v, int64_t l, int64_t j, int64_t g,
                   const char *inLayout = "NCHW",
                   const char *filLayout = "NCHW",
                   const char *outLayout = "NCHW") {
  ConvProblem prob = ConvProblem::withDefaults(2);
  prob.batch = n;
  prob.inChannels = c;
  prob.outChannels = k;
  prob.groups = g;
  prob.inSpatial = {h, w};
  prob.filterSpatial = {y, x};
  prob.padLow = prob.padHigh = {p, q};
  prob.strides = {u, v};
  prob.dilations = {l, j};
  prob.inputLayout = inLayout;
  prob.filterLayout = filLayout;
  prob.outputLayout = outLayout;
  return prob;
}

std::vector<ConvCommand> convCommands() {
  std::vector<ConvCommand> cmds;
  // The example: bf16, NHWC everywhere, 2 groups, stride 2.
  cmds.push_back({"convbfp16 -n 2 -c 8 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1 "
                  "-u 2 -v 2 -l 1 -j 1 -g 2 -F 1 --in_layout NHWC "
                  "--fil_layout NHWC --out_layout NHWC",
                  ElementType::BF16, 1, false,
                  conv2D(2, 8, 9, 9, 16, 3, 3, 1, 1, 2, 2, 1, 1, 2, "NHWC",
                         "NHWC", "NHWC")});
  // Default layouts, f32, forward with bias, long flag spellings.
  cmds.push_back({"MIOpenDriver conv --batchsize 2 --in_channels 3 --in_h 8 "
                  "--in_w 7 --out_channels 5 --fil_h 3 --fil_w 2 --pad_h 1 "
                  "--pad_w 0 --conv_stride_h 2 --conv_stride_w 1 "
                  "--dilation_h 1 --dilation_w 2 --forw 1 --bias 1",
                  ElementType::F32, 1, true,
                  conv2D(2, 3, 8, 7, 5, 3, 2, 1, 0, 2, 1, 1, 2, 1)});
  // Backward data, f16, stride 2 with padding, NHWC.
  cmds.push_back({"convfp16 -n 1 -c 4 -H 7 -W 6 -k 6 -y 3 -x 3 -p 1 -q 1 "
                  "-u 2 -v 2 -F 2 --in_layout NHWC --fil_layout NHWC "
                  "--out_layout NHWC",
                  ElementType::F16, 2, false,
                  conv2D(1, 4, 7, 6, 6, 3, 3, 1, 1, 2, 2, 1, 1, 1, "NHWC",
                         "NHWC", "NHWC")});
  // Backward weight, depthwise, f32.
  cmds.push_back({"conv -n 2 -c 6 -H 5 -W 5 -k 6 -y 3 -x 3 -p 1 -q 1 -u 1 "
                  "-v 1 -g 6 -F 4",
                  ElementType::F32, 4, false,
                  conv2D(2, 6, 5, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 6)});
  // Both backward directions and the bias gradient, bf16, grouped,
  // dilated.
  cmds.push_back({"convbfp16 -n 2 -c 4 -H 9 -W 8 -k 4 -y 2 -x 3 -p 0 -q 2 "
                  "-u 1 -v 3 -l 2 -j 1 -g 2 -F 6 -b 1",
                  ElementType::BF16, 6, true,
                  conv2D(2, 4, 9, 8, 4, 2, 3, 0, 2, 1, 3, 2, 1, 2)});
  // 3-D, forward, f32: -! depth, -@ filter depth, -$ pad, -# stride,
  // -^ dilation.
  ConvProblem p3 = ConvProblem::withDefaults(3);
  p3.batch = 1;
  p3.inChannels = 2;
  p3.outChannels = 4;
  p3.inSpatial = {4, 5, 6};
  p3.filterSpatial = {3, 2, 3};
  p3.padLow = p3.padHigh = {1, 0, 1};
  p3.strides = {1, 2, 2};
  p3.dilations = {1, 1, 2};
  cmds.push_back({"conv --spatial_dim 3 -n 1 -c 2 -! 4 -H 5 -W 6 -k 4 -@ 3 "
                  "-y 2 -x 3 -$ 1 -p 0 -q 1 -# 1 -u 2 -v 2 -^ 1 -l 1 -j 2 "
                  "-F 1",
                  ElementType::F32, 1, false, p3});
  return cmds;
}

std::string printModule(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

/// Imports `command`; on failure sets `error`.
bool importToText(const char *command, std::string &text, std::string &error) {
  mlir::DialectRegistry registry;
  mlir::boo::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  auto module = mlir::boo::importMIOpenCommand(&ctx, command, error);
  if (mlir::failed(module))
    return false;
  text = printModule(**module);
  return true;
}

TEST(MIOpenNumerics, Conv) {
  SweepOptions options = getSweepOptions(0);
  std::vector<ConvCommand> cmds = convCommands();
  for (size_t i = 0; i < cmds.size(); ++i) {
    const ConvCommand &cmd = cmds[i];
    SCOPED_TRACE(cmd.command);
    std::string error;
    ASSERT_TRUE(cmd.problem.validate(error)) << error;
    Case c;
    ASSERT_TRUE(importToText(cmd.command, c.mlir, error)) << error;
    c.description = cmd.command;
    CaseRng rng = caseRng(options, "MIOpenNumerics.Conv", i);
    const ConvProblem &p = cmd.problem;
    ElementType t = cmd.type;
    Tensor x = randomTensor(p.inputShape(), t, rng);
    Tensor w = randomTensor(p.filterShape(), t, rng);
    Tensor b = randomTensor({p.outChannels}, t, rng);
    Tensor dy = randomTensor(p.outputShape(), t, rng);
    if (cmd.direction == 1) {
      c.args = {{"input", x, t}, {"filter", w, t}};
      if (cmd.bias)
        c.args.push_back({"bias", b, t});
      c.results = {
          {"output",
           ref::convForwardBounded(p, x, w, cmd.bias ? &b : nullptr, t), t}};
    } else {
      c.args = {{"grad_output", dy, t}};
      if (cmd.direction & 4)
        c.args.push_back({"input", x, t});
      if (cmd.direction & 2)
        c.args.push_back({"filter", w, t});
      if (cmd.direction & 2)
        c.results.push_back(
            {"grad_input", ref::convBackwardDataBounded(p, dy, w, t), t});
      if (cmd.direction & 4)
        c.results.push_back(
            {"grad_filter", ref::convBackwardWeightBounded(p, dy, x, t), t});
      if (cmd.bias) {
        std::vector<int> perm;
        ref::parseLayout(p.outputLayout, ref::LayoutRole::Activation,
                         p.spatialRank, perm, error);
        c.results.push_back(
            {"grad_bias", ref::convBackwardBiasBounded(dy, perm[1], t), t});
      }
    }
    EXPECT_TRUE(
        runCase(c, options, "MIOpenNumerics.Conv", static_cast<int64_t>(i)));
  }
}

TEST(MIOpenNumerics, LayerNorm) {
  SweepOptions options = getSweepOptions(0);
  // Forward with weight and bias: -X 4x6x10, dims from 1 on normalized.
  {
    const char *command =
        "layernorm -X 4x6x10 --normalized_dim 1 -m 1 -F 1 --eps 0.001";
    SCOPED_TRACE(command);
    Case c;
    std::string error;
    ASSERT_TRUE(importToText(command, c.mlir, error)) << error;
    c.description = command;
    CaseRng rng = caseRng(options, "MIOpenNumerics.LayerNorm", 0);
    Tensor x = randomTensor({4, 6, 10}, ElementType::F32, rng, -3, 5);
    Tensor w = randomTensor({6, 10}, ElementType::F32, rng);
    Tensor b = randomTensor({6, 10}, ElementType::F32, rng);
    ref::LayerNormBounded r = ref::layerNormForwardBounded(
        x, 2, &w, &b, ref::roundTo(0.001, ElementType::F32), ElementType::F32,
        ElementType::F32);
    c.args = {{"x", x, ElementType::F32},
              {"weight", w, ElementType::F32},
              {"bias", b, ElementType::F32}};
    c.results = {{"y", r.y, ElementType::F32},
                 {"mean", r.mean, ElementType::F32},
                 {"rstd", r.rstd, ElementType::F32}};
    EXPECT_TRUE(runCase(c, options, "MIOpenNumerics.LayerNorm", 0));
  }
  // All three gradients, f16 data with f32 statistics: -F 14 takes
  // (dy, x, weight, bias, mean, rstd); the bias does not enter.
  {
    const char *command = "layernormfp16 -X 3x5x7 -o 2 -m 1 -F 14";
    SCOPED_TRACE(command);
    Case c;
    std::string error;
    ASSERT_TRUE(importToText(command, c.mlir, error)) << error;
    c.description = command;
    CaseRng rng = caseRng(options, "MIOpenNumerics.LayerNorm", 1);
    ElementType t = ElementType::F16;
    Tensor x = randomTensor({3, 5, 7}, t, rng, -2, 2);
    Tensor dy = randomTensor({3, 5, 7}, t, rng);
    Tensor w = randomTensor({7}, t, rng);
    Tensor b = randomTensor({7}, t, rng);
    ref::LayerNormResult fwd = ref::layerNormForward(
        x, 1, &w, &b, ref::roundTo(1e-5, ElementType::F32));
    for (double &v : fwd.mean.data)
      v = ref::roundTo(v, ElementType::F32);
    for (double &v : fwd.rstd.data)
      v = ref::roundTo(v, ElementType::F32);
    ref::LayerNormGradsBounded r =
        ref::layerNormBackwardBounded(dy, x, fwd.mean, fwd.rstd, &w, 1, t);
    c.args = {{"dy", dy, t},
              {"x", x, t},
              {"weight", w, t},
              {"bias", b, t},
              {"mean", fwd.mean, ElementType::F32},
              {"rstd", fwd.rstd, ElementType::F32}};
    c.results = {
        {"dx", r.dx, t}, {"dweight", r.dweight, t}, {"dbias", r.dbias, t}};
    EXPECT_TRUE(runCase(c, options, "MIOpenNumerics.LayerNorm", 1));
  }
}

} // namespace
