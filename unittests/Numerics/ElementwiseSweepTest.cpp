//===- ElementwiseSweepTest.cpp - Randomized element-wise numerics --------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Every activation over inputs that reach its saturated and linear regions,
// add and mul with same-shape and per-channel operands, and chains of them,
// in f32/f16/bf16. See docs/Numerics.md.
//
//===----------------------------------------------------------------------===//

#include "SweepHarness.h"

#include <sstream>

using namespace boo;
using namespace boo::sweep;
using ref::Tensor;

namespace {

std::vector<int64_t> randomShape(CaseRng &rng, int64_t maxElements = 4096) {
  for (;;) {
    int rank = static_cast<int>(rng.range(1, 4));
    std::vector<int64_t> shape(rank);
    for (int64_t &d : shape)
      d = rng.pick(std::vector<int64_t>{1, 2, 3, 5, 7, 8, 16, 17, 33});
    if (ref::product(shape) <= maxElements)
      return shape;
  }
}

/// Inputs over [-8, 8], where every activation has left its linear region,
/// with a few exact zeros and large values (+-20: sigmoid, tanh and silu
/// saturate) mixed in.
Tensor activationInput(const std::vector<int64_t> &shape, ElementType t,
                       CaseRng &rng) {
  Tensor x = randomTensor(shape, t, rng, -8, 8);
  for (double &v : x.data) {
    double r = rng.real(0, 1);
    if (r < 0.03)
      v = 0.0;
    else if (r < 0.06)
      v = rng.coin() ? 20.0 : -20.0;
  }
  return x;
}

bool makeActivation(CaseRng &rng, Case &c) {
  std::vector<int64_t> shape = randomShape(rng);
  ElementType t = randomDType(rng);
  RandomActivation act = randomActivation(rng);
  Tensor x = activationInput(shape, t, rng);
  std::string tx = tensorType(shape, t);
  FuncBuilder f("activation");
  std::string vx = f.arg(tx), y = f.fresh();
  f.body() << "  " << y << " = " << activationOp(act, vx, tx) << "\n";
  c.mlir = f.finish({y}, {tx});
  c.args = {{"x", x, t}};
  c.results = {
      {"y", ref::activationBounded(act.kind, ref::exact(x), act.params, t), t}};
  std::ostringstream desc;
  desc << "activation " << ref::activationName(act.kind) << " "
       << tensorType(shape, t) << act.attrs;
  c.description = desc.str();
  c.vectorize = rng.coin(0.85);
  return true;
}

/// Two to four element-wise ops: activations, and adds and muls whose rhs is
/// a new argument of the same shape or a per-channel vector.
bool makeChain(CaseRng &rng, Case &c) {
  std::vector<int64_t> shape = randomShape(rng);
  ElementType t = randomDType(rng);
  std::string tx = tensorType(shape, t);
  FuncBuilder f("elementwise_chain");
  Tensor x = randomTensor(shape, t, rng, -3, 3);
  c.args = {{"x", x, t}};
  std::string cur = f.arg(tx);
  ref::Bounded value = ref::exact(x);
  std::ostringstream desc;
  desc << "chain " << tx << ":";
  int numOps = static_cast<int>(rng.range(2, 4));
  // Declare all arguments before the body uses them.
  struct Step {
    int kind; // 0 activation, 1 add, 2 mul
    int channelDim;
    RandomActivation act;
    std::string operand;
    Tensor operandValue;
  };
  std::vector<Step> steps;
  for (int i = 0; i < numOps; ++i) {
    Step s;
    s.kind = static_cast<int>(rng.range(0, 2));
    s.act = randomActivation(rng);
    s.channelDim = -1;
    if (s.kind != 0) {
      // A per-channel rhs of a rank-1 lhs would have lhs's type, which
      // is the same-shape form (channel_dim is then not allowed).
      if (shape.size() > 1 && rng.coin()) {
        s.channelDim = static_cast<int>(rng.range(0, shape.size() - 1));
        std::vector<int64_t> cs = {shape[s.channelDim]};
        s.operand = f.arg(tensorType(cs, t));
        s.operandValue = randomTensor(cs, t, rng, -2, 2);
      } else {
        s.operand = f.arg(tx);
        s.operandValue = randomTensor(shape, t, rng, -2, 2);
      }
      c.args.push_back(
          {s.kind == 1 ? "add_rhs" : "mul_rhs", s.operandValue, t});
    }
    steps.push_back(s);
  }
  for (const Step &s : steps) {
    std::string next = f.fresh();
    if (s.kind == 0) {
      f.body() << "  " << next << " = " << activationOp(s.act, cur, tx) << "\n";
      value = ref::activationBounded(s.act.kind, value, s.act.params, t);
      desc << " " << ref::activationName(s.act.kind);
    } else {
      bool add = s.kind == 1;
      f.body() << "  " << next << " = boo." << (add ? "add " : "mul ") << cur
               << ", " << s.operand;
      if (s.channelDim >= 0)
        f.body() << " {channel_dim = " << s.channelDim << " : i64} : " << tx
                 << ", " << tensorType({shape[s.channelDim]}, t) << "\n";
      else
        f.body() << " : " << tx << ", " << tx << "\n";
      value = ref::binaryBounded(
          add ? ref::BinaryKind::Add : ref::BinaryKind::Mul, value,
          ref::exact(s.operandValue), s.channelDim, t);
      desc << " " << (add ? "add" : "mul");
      if (s.channelDim >= 0)
        desc << "[channel_dim=" << s.channelDim << "]";
    }
    cur = next;
  }
  c.mlir = f.finish({cur}, {tx});
  c.results = {{"y", value, t}};
  c.description = desc.str();
  c.formFusions = rng.coin(0.7);
  c.vectorize = rng.coin(0.85);
  return true;
}

TEST(ElementwiseSweep, Activation) {
  runSweep("ElementwiseSweep.Activation", 80, makeActivation);
}

TEST(ElementwiseSweep, Chain) {
  runSweep("ElementwiseSweep.Chain", 60, makeChain);
}

} // namespace
