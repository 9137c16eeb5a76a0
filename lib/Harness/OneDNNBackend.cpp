//===- OneDNNBackend.cpp - oneDNN as a reference backend
//-------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// oneDNN's C++ API reports errors by throwing dnnl::error. Boo is built
// without exceptions, so CMake compiles this one file with them, and every
// entry point catches everything: no exception leaves this file.
//
// Tensors: Boo's (MIOpen's) layouts are permutations of the canonical
// order (N, C, spatial...) / (K, C/G, spatial...). The user memories are
// described in oneDNN's canonical dims with the strides of the real layout,
// so any layout works; the primitives are created with format_tag::any and
// the inputs and results reordered to and from their preferred layouts
// outside the timed calls.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/OneDNNBackend.h"

#include "Boo/Harness/Verify.h"

#include <chrono>
#include <cmath>
#include <cstring>

#ifdef BOO_HAVE_ONEDNN
#include "dnnl.hpp"
#endif

// oneDNN's thread count is its OpenMP runtime's (Debian builds it with
// DNNL_CPU_RUNTIME=OMP, on libgomp, which CMake links where found).
#if defined(BOO_HAVE_ONEDNN) && defined(BOO_HAVE_GOMP) &&                      \
    DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
#define BOO_ONEDNN_THREADS_SETTABLE 1
extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int);
}
#endif

using namespace mlir;
using namespace mlir::boo;

bool harness::isOneDNNAvailable() {
#ifdef BOO_HAVE_ONEDNN
  return true;
#else
  return false;
#endif
}

#ifndef BOO_HAVE_ONEDNN

LogicalResult harness::runOneDNN(const MIOpenProblem &,
                                 const std::vector<HostTensor> &, int64_t,
                                 int64_t, OneDNNRun &, std::string &error) {
  error = "boo-driver was built without oneDNN (install libdnnl-dev and "
          "reconfigure)";
  return failure();
}

#else

namespace {

using dnnl::memory;
using DataType = memory::data_type;

DataType toDnnl(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return DataType::f16;
  case ElementType::BF16:
    return DataType::bf16;
  default:
    return DataType::f32;
  }
}

/// Row-major strides of `shape`.
std::vector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// A tensor stored with `shape` whose canonical dim i is at position
/// perm[i], in oneDNN's canonical dims. Grouped filters (groups > 1) become
/// (G, K/G, C/G, spatial...).
memory::desc describe(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm,
                      DataType type, int64_t groups = 1) {
  std::vector<int64_t> rowMajor = rowMajorStrides(shape);
  memory::dims dims, strides;
  for (size_t i = 0; i < perm.size(); ++i) {
    dims.push_back(shape[perm[i]]);
    strides.push_back(rowMajor[perm[i]]);
  }
  if (groups > 1) {
    // Canonical dim 0 (K) splits into G x K/G, G outermost.
    int64_t perGroup = dims[0] / groups;
    dims.insert(dims.begin(), groups);
    dims[1] = perGroup;
    strides.insert(strides.begin(), strides[0] * perGroup);
  }
  return memory::desc(dims, type, strides);
}

/// The same dims with format_tag::any.
memory::desc anyLayout(const memory::desc &user, DataType type) {
  return memory::desc(user.dims(), type, memory::format_tag::any);
}

/// Host bytes of a tensor in the computation's type.
struct Buffer {
  HostTensor tensor;
  memory user;
};

Buffer makeBuffer(const HostTensor &host, ElementType computeType,
                  const memory::desc &desc, const dnnl::engine &engine) {
  Buffer buffer{host.type == computeType ? host : host.convertTo(computeType),
                memory()};
  buffer.user = memory(desc, engine, buffer.tensor.data.data());
  return buffer;
}

Buffer makeResult(ArrayRef<int64_t> shape, ElementType computeType,
                  const memory::desc &desc, const dnnl::engine &engine) {
  Buffer buffer{
      HostTensor::zeros(std::vector<int64_t>(shape.begin(), shape.end()),
                        computeType),
      memory()};
  buffer.user = memory(desc, engine, buffer.tensor.data.data());
  return buffer;
}

/// The memory a primitive reads or writes for `user`: `user` itself when
/// the primitive wants its layout, else a new one (reordered into, for an
/// input, before the calls).
memory prepare(const memory &user, const memory::desc &wanted,
               const dnnl::engine &engine, dnnl::stream &stream, bool input) {
  if (user.get_desc() == wanted)
    return user;
  memory source = user, internal(wanted, engine);
  if (input)
    dnnl::reorder(source, internal).execute(stream, source, internal);
  return internal;
}

void finish(memory internal, memory user, dnnl::stream &stream) {
  if (internal != user)
    dnnl::reorder(internal, user).execute(stream, internal, user);
}

using Clock = std::chrono::steady_clock;

/// One untimed call, then `iterations` timed ones of all `steps`.
std::vector<double> timeCalls(
    dnnl::stream &stream, int64_t iterations,
    std::vector<std::pair<dnnl::primitive, std::unordered_map<int, memory>>>
        &steps) {
  std::vector<double> ms;
  for (int64_t i = -1; i < iterations; ++i) {
    auto start = Clock::now();
    for (auto &[primitive, args] : steps)
      primitive.execute(stream, args);
    stream.wait();
    if (i >= 0)
      ms.push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - start)
              .count());
  }
  return ms;
}

LogicalResult runConv(const MIOpenConvProblem &p,
                      const std::vector<HostTensor> &inputs, int64_t iterations,
                      ElementType computeType, harness::OneDNNRun &run) {
  using namespace dnnl;
  const ConvGeometry &g = p.geometry;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  DataType type = toDnnl(computeType);
  memory::dims strides(g.strides.begin(), g.strides.end());
  memory::dims dilates, padL(g.padLow.begin(), g.padLow.end()),
      padR(g.padHigh.begin(), g.padHigh.end());
  for (int64_t d : g.dilations)
    dilates.push_back(d - 1);

  SmallVector<int64_t> inShape = g.inputShape(), filShape = g.filterShape(),
                       outShape = g.outputShape();
  memory::desc inDesc = describe(inShape, g.inputPerm, type);
  memory::desc filDesc = describe(filShape, g.filterPerm, type, g.groups);
  memory::desc outDesc = describe(outShape, g.outputPerm, type);
  memory::desc biasDesc({g.outChannels}, type, memory::format_tag::x);

  // The forward primitive descriptor: what forward runs, and the hint the
  // backward ones need.
  convolution_forward::desc fwdDesc(
      prop_kind::forward_training, algorithm::convolution_direct,
      anyLayout(inDesc, type), anyLayout(filDesc, type),
      (p.direction == 1 && p.bias) ? biasDesc : memory::desc(),
      anyLayout(outDesc, type), strides, dilates, padL, padR);
  convolution_forward::primitive_desc fwdPd(fwdDesc, eng);

  std::vector<std::pair<primitive, std::unordered_map<int, memory>>> steps;
  std::vector<Buffer> buffers;
  // Results, in result order: the memory the primitive writes and the
  // buffer (of `buffers`) it is reordered back into after the calls.
  std::vector<std::pair<memory, size_t>> outputs;
  buffers.reserve(8);
  auto input = [&](const HostTensor &host, const memory::desc &desc,
                   const memory::desc &wanted) {
    buffers.push_back(makeBuffer(host, computeType, desc, eng));
    return prepare(buffers.back().user, wanted, eng, strm, /*input=*/true);
  };
  auto result = [&](ArrayRef<int64_t> shape, const memory::desc &desc,
                    const memory::desc &wanted) {
    buffers.push_back(makeResult(shape, computeType, desc, eng));
    memory internal =
        prepare(buffers.back().user, wanted, eng, strm, /*input=*/false);
    outputs.push_back({internal, buffers.size() - 1});
    return internal;
  };

  if (p.direction == 1) {
    std::unordered_map<int, memory> args;
    args[DNNL_ARG_SRC] = input(inputs[0], inDesc, fwdPd.src_desc());
    args[DNNL_ARG_WEIGHTS] = input(inputs[1], filDesc, fwdPd.weights_desc());
    if (p.bias)
      args[DNNL_ARG_BIAS] = input(inputs[2], biasDesc, biasDesc);
    args[DNNL_ARG_DST] = result(outShape, outDesc, fwdPd.dst_desc());
    steps.push_back({convolution_forward(fwdPd), args});
  } else {
    // Arguments: grad_output[, input if -F has 4][, filter if -F has 2];
    // results: grad_input?, grad_filter?, grad_bias?.
    size_t next = 1;
    const HostTensor &gradOut = inputs[0];
    const HostTensor *in = (p.direction & 4) ? &inputs[next++] : nullptr;
    const HostTensor *fil = (p.direction & 2) ? &inputs[next++] : nullptr;
    if (p.direction & 2) {
      convolution_backward_data::desc desc(
          algorithm::convolution_direct, anyLayout(inDesc, type),
          anyLayout(filDesc, type), anyLayout(outDesc, type), strides, dilates,
          padL, padR);
      convolution_backward_data::primitive_desc pd(desc, eng, fwdPd);
      std::unordered_map<int, memory> args;
      args[DNNL_ARG_DIFF_DST] = input(gradOut, outDesc, pd.diff_dst_desc());
      args[DNNL_ARG_WEIGHTS] = input(*fil, filDesc, pd.weights_desc());
      args[DNNL_ARG_DIFF_SRC] = result(inShape, inDesc, pd.diff_src_desc());
      steps.push_back({convolution_backward_data(pd), args});
    }
    if (p.direction & 4) {
      convolution_backward_weights::desc desc(
          algorithm::convolution_direct, anyLayout(inDesc, type),
          anyLayout(filDesc, type), p.bias ? biasDesc : memory::desc(),
          anyLayout(outDesc, type), strides, dilates, padL, padR);
      convolution_backward_weights::primitive_desc pd(desc, eng, fwdPd);
      std::unordered_map<int, memory> args;
      args[DNNL_ARG_DIFF_DST] = input(gradOut, outDesc, pd.diff_dst_desc());
      args[DNNL_ARG_SRC] = input(*in, inDesc, pd.src_desc());
      args[DNNL_ARG_DIFF_WEIGHTS] =
          result(filShape, filDesc, pd.diff_weights_desc());
      if (p.bias)
        args[DNNL_ARG_DIFF_BIAS] =
            result({g.outChannels}, biasDesc, pd.diff_bias_desc());
      steps.push_back({convolution_backward_weights(pd), args});
    } else if (p.bias) {
      return failure(); // grad_bias without -F 4: not a oneDNN primitive.
    }
  }
  strm.wait();
  run.milliseconds = timeCalls(strm, iterations, steps);
  for (auto &[internal, index] : outputs)
    finish(internal, buffers[index].user, strm);
  strm.wait();
  // Converted to the result's type.
  ElementType resultType = p.dataType;
  for (auto &[internal, index] : outputs) {
    const HostTensor &tensor = buffers[index].tensor;
    run.results.push_back(
        tensor.type == resultType ? tensor : tensor.convertTo(resultType));
  }
  return success();
}

LogicalResult runLayerNorm(const MIOpenLayerNormProblem &p,
                           const std::vector<HostTensor> &inputs,
                           int64_t iterations, ElementType computeType,
                           harness::OneDNNRun &run, std::string &error) {
  using namespace dnnl;
  if (p.direction != 1) {
    error = "oneDNN backend: only layer norm forward (-F 1) is compared";
    return failure();
  }
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  DataType type = toDnnl(computeType);
  // oneDNN normalizes the last dim: the normalized dims flattened into one.
  int64_t rows = 1, columns = 1;
  for (size_t i = 0; i < p.shape.size(); ++i)
    (static_cast<int64_t>(i) < p.normalizedDim ? rows : columns) *= p.shape[i];
  memory::desc dataDesc({rows, columns}, type, memory::format_tag::ab);
  memory::desc statDesc({rows}, DataType::f32, memory::format_tag::a);
  memory::desc paramDesc({columns}, DataType::f32, memory::format_tag::a);
  normalization_flags flags = normalization_flags::none;
  if (p.weightAndBias)
    flags = normalization_flags::use_scale | normalization_flags::use_shift;
  layer_normalization_forward::desc desc(prop_kind::forward_training, dataDesc,
                                         statDesc, p.epsilon, flags);
  layer_normalization_forward::primitive_desc pd(desc, eng);

  std::vector<Buffer> buffers;
  buffers.reserve(8);
  buffers.push_back(makeBuffer(inputs[0], computeType, dataDesc, eng));
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = buffers.back().user;
  if (p.weightAndBias) {
    buffers.push_back(makeBuffer(inputs[1], ElementType::F32, paramDesc, eng));
    args[DNNL_ARG_SCALE] = buffers.back().user;
    buffers.push_back(makeBuffer(inputs[2], ElementType::F32, paramDesc, eng));
    args[DNNL_ARG_SHIFT] = buffers.back().user;
  }
  std::vector<int64_t> statShape(p.shape.begin(),
                                 p.shape.begin() + p.normalizedDim);
  buffers.push_back(makeResult(p.shape, computeType, dataDesc, eng));
  size_t y = buffers.size() - 1;
  args[DNNL_ARG_DST] = buffers.back().user;
  buffers.push_back(makeResult(statShape, ElementType::F32, statDesc, eng));
  size_t mean = buffers.size() - 1;
  args[DNNL_ARG_MEAN] = buffers.back().user;
  buffers.push_back(makeResult(statShape, ElementType::F32, statDesc, eng));
  size_t variance = buffers.size() - 1;
  args[DNNL_ARG_VARIANCE] = buffers.back().user;
  std::vector<std::pair<primitive, std::unordered_map<int, memory>>> steps;
  steps.push_back({layer_normalization_forward(pd), args});
  run.milliseconds = timeCalls(strm, iterations, steps);

  ElementType resultType = p.dataType;
  const HostTensor &yTensor = buffers[y].tensor;
  run.results.push_back(
      yTensor.type == resultType ? yTensor : yTensor.convertTo(resultType));
  run.results.push_back(buffers[mean].tensor);
  // Boo returns rstd = 1 / sqrt(variance + epsilon).
  HostTensor rstd = buffers[variance].tensor;
  for (int64_t i = 0; i < rstd.numElements(); ++i)
    rstd.setFromDouble(i, 1.0 / std::sqrt(rstd.getAsDouble(i) + p.epsilon));
  run.results.push_back(rstd);
  return success();
}

/// perm[i]: where dim i of oneDNN's canonical (N, C, [D,] H, W) order is in
/// `layout` (NCHW, NHWC, NCDHW or NDHWC).
std::vector<int64_t> getCanonicalPerm(const std::string &layout) {
  std::string canonical = layout.size() == 5 ? "NCDHW" : "NCHW";
  std::vector<int64_t> perm;
  for (char dim : canonical)
    perm.push_back(static_cast<int64_t>(layout.find(dim)));
  return perm;
}

std::vector<double> toDoubles(const HostTensor &t) {
  std::vector<double> values(t.numElements());
  for (int64_t i = 0; i < t.numElements(); ++i)
    values[i] = t.getAsDouble(i);
  return values;
}

/// A batch norm's memories: x, y and their gradients ("data") in the
/// computation's type, as the layout stores them; the statistics and the
/// parameters ("stat", one per channel) in f32, as oneDNN wants them.
struct BatchNormMemories {
  BatchNormMemories(const MIOpenBatchNormProblem &p, ElementType computeType)
      : signature(getProblemSignature(p)), computeType(computeType) {
    SmallVector<int64_t> channels = p.getStatShape();
    statShape.assign(channels.begin(), channels.end());
    dataShape.assign(p.shape.begin(), p.shape.end());
    data = describe(p.shape, getCanonicalPerm(p.layout), toDnnl(computeType));
    stat = memory::desc(statShape, DataType::f32, memory::format_tag::a);
    buffers.reserve(16);
  }

  /// The argument `name`.
  memory dataInput(const std::vector<HostTensor> &inputs, StringRef name) {
    return add(makeBuffer(inputs[signature.findArgument(name)], computeType,
                          data, eng));
  }
  memory statInput(const std::vector<HostTensor> &inputs, StringRef name) {
    return add(makeBuffer(inputs[signature.findArgument(name)],
                          ElementType::F32, stat, eng));
  }
  memory statInput(const std::vector<double> &values) {
    HostTensor t = HostTensor::fromDoubles(statShape, ElementType::F32, values);
    return add(makeBuffer(t, ElementType::F32, stat, eng));
  }
  /// A zeroed result, whose buffer is then `buffers[index]`.
  memory dataResult(size_t &index) {
    index = buffers.size();
    return add(makeResult(dataShape, computeType, data, eng));
  }
  memory statResult(size_t &index) {
    index = buffers.size();
    return add(makeResult(statShape, ElementType::F32, stat, eng));
  }
  /// Buffer `index` in `type`.
  HostTensor result(size_t index, ElementType type) const {
    const HostTensor &t = buffers[index].tensor;
    return t.type == type ? t : t.convertTo(type);
  }

  ProblemSignature signature;
  ElementType computeType;
  std::vector<int64_t> dataShape, statShape;
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  memory::desc data, stat;
  std::vector<Buffer> buffers;

private:
  memory add(Buffer buffer) {
    // The memory points into the tensor's heap bytes, which the move keeps.
    buffers.push_back(std::move(buffer));
    return buffers.back().user;
  }
};

using Steps =
    std::vector<std::pair<dnnl::primitive, std::unordered_map<int, memory>>>;

/// Training and inference. oneDNN returns the biased variance: rstd and the
/// running statistics' update (unbiased, momentum) are computed from it
/// here, in double.
void runBatchNormForward(const MIOpenBatchNormProblem &p,
                         const std::vector<HostTensor> &inputs,
                         int64_t iterations, ElementType computeType,
                         harness::OneDNNRun &run) {
  using namespace dnnl;
  using Direction = MIOpenBatchNormProblem::Direction;
  bool training = p.direction == Direction::Training;
  bool global = !training && p.run;
  BatchNormMemories m(p, computeType);
  normalization_flags flags =
      normalization_flags::use_scale | normalization_flags::use_shift;
  if (global)
    flags |= normalization_flags::use_global_stats;
  batch_normalization_forward::desc desc(
      training ? prop_kind::forward_training : prop_kind::forward_inference,
      m.data, p.epsilon, flags);
  batch_normalization_forward::primitive_desc pd(desc, m.eng);
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = m.dataInput(inputs, "x");
  args[DNNL_ARG_SCALE] = m.statInput(inputs, "weight");
  args[DNNL_ARG_SHIFT] = m.statInput(inputs, "bias");
  size_t y, mean = 0, var = 0;
  args[DNNL_ARG_DST] = m.dataResult(y);
  if (global) {
    args[DNNL_ARG_MEAN] = m.statInput(inputs, "running_mean");
    args[DNNL_ARG_VARIANCE] = m.statInput(inputs, "running_var");
  } else if (training) {
    args[DNNL_ARG_MEAN] = m.statResult(mean);
    args[DNNL_ARG_VARIANCE] = m.statResult(var);
  }
  Steps steps;
  steps.push_back({batch_normalization_forward(pd), args});
  run.milliseconds = timeCalls(m.strm, iterations, steps);

  run.results.push_back(m.result(y, p.dataType));
  if (!training)
    return;
  std::vector<double> batchMean = toDoubles(m.buffers[mean].tensor);
  std::vector<double> batchVar = toDoubles(m.buffers[var].tensor);
  if (p.save) {
    std::vector<double> rstd;
    for (double v : batchVar)
      rstd.push_back(1.0 / std::sqrt(v + p.epsilon));
    run.results.push_back(m.result(mean, p.statType));
    run.results.push_back(
        HostTensor::fromDoubles(m.statShape, p.statType, rstd));
  }
  if (!p.run)
    return;
  double size = static_cast<double>(p.getReductionSize());
  double unbias = size > 1 ? size / (size - 1) : 1.0;
  std::vector<double> runMean =
      toDoubles(inputs[m.signature.findArgument("running_mean")]);
  std::vector<double> runVar =
      toDoubles(inputs[m.signature.findArgument("running_var")]);
  double momentum = p.momentum;
  for (size_t f = 0; f < runMean.size(); ++f) {
    runMean[f] = (1 - momentum) * runMean[f] + momentum * batchMean[f];
    runVar[f] = (1 - momentum) * runVar[f] + momentum * batchVar[f] * unbias;
  }
  run.results.push_back(
      HostTensor::fromDoubles(m.statShape, p.statType, runMean));
  run.results.push_back(
      HostTensor::fromDoubles(m.statShape, p.statType, runVar));
}

/// The backward. With --save, the variance oneDNN takes is
/// 1 / rstd^2 - epsilon (in double); without, a forward-training call
/// computes the statistics first, and is timed with it.
void runBatchNormBackward(const MIOpenBatchNormProblem &p,
                          const std::vector<HostTensor> &inputs,
                          int64_t iterations, ElementType computeType,
                          harness::OneDNNRun &run) {
  using namespace dnnl;
  BatchNormMemories m(p, computeType);
  normalization_flags flags =
      normalization_flags::use_scale | normalization_flags::use_shift;
  batch_normalization_forward::desc fwdDesc(prop_kind::forward_training, m.data,
                                            p.epsilon, flags);
  batch_normalization_forward::primitive_desc fwdPd(fwdDesc, m.eng);
  batch_normalization_backward::desc desc(prop_kind::backward, m.data, m.data,
                                          p.epsilon, flags);
  batch_normalization_backward::primitive_desc pd(desc, m.eng, fwdPd);

  Steps steps;
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = m.dataInput(inputs, "x");
  args[DNNL_ARG_DIFF_DST] = m.dataInput(inputs, "dy");
  args[DNNL_ARG_SCALE] = m.statInput(inputs, "weight");
  // oneDNN 2.6 refuses to run the backward without the shift, which enters
  // no gradient.
  args[DNNL_ARG_SHIFT] = m.statInput(std::vector<double>(m.statShape[0], 0.0));
  if (p.save) {
    args[DNNL_ARG_MEAN] = m.statInput(inputs, "mean");
    std::vector<double> variance =
        toDoubles(inputs[m.signature.findArgument("rstd")]);
    for (double &v : variance)
      v = 1.0 / (v * v) - p.epsilon;
    args[DNNL_ARG_VARIANCE] = m.statInput(variance);
  } else {
    size_t y, mean, var;
    std::unordered_map<int, memory> fwdArgs = args;
    fwdArgs.erase(DNNL_ARG_DIFF_DST);
    fwdArgs[DNNL_ARG_DST] = m.dataResult(y);
    args[DNNL_ARG_MEAN] = fwdArgs[DNNL_ARG_MEAN] = m.statResult(mean);
    args[DNNL_ARG_VARIANCE] = fwdArgs[DNNL_ARG_VARIANCE] = m.statResult(var);
    steps.push_back({batch_normalization_forward(fwdPd), fwdArgs});
    run.note = "statistics by a forward-training call, timed with it";
  }
  size_t dx, dweight, dbias;
  args[DNNL_ARG_DIFF_SRC] = m.dataResult(dx);
  args[DNNL_ARG_DIFF_SCALE] = m.statResult(dweight);
  args[DNNL_ARG_DIFF_SHIFT] = m.statResult(dbias);
  steps.push_back({batch_normalization_backward(pd), args});
  run.milliseconds = timeCalls(m.strm, iterations, steps);
  run.results.push_back(m.result(dx, p.dataType));
  run.results.push_back(m.result(dweight, p.paramType));
  run.results.push_back(m.result(dbias, p.paramType));
}

/// oneDNN normalizes per channel only (MIOpen's spatial mode).
LogicalResult runBatchNorm(const MIOpenBatchNormProblem &p,
                           const std::vector<HostTensor> &inputs,
                           int64_t iterations, ElementType computeType,
                           harness::OneDNNRun &run, std::string &error) {
  if (!p.spatial) {
    error = "oneDNN backend: batch norm per activation (-m 0) has no oneDNN "
            "primitive (it normalizes per channel, -m 1)";
    return failure();
  }
  if (p.direction == MIOpenBatchNormProblem::Direction::Backward)
    runBatchNormBackward(p, inputs, iterations, computeType, run);
  else
    runBatchNormForward(p, inputs, iterations, computeType, run);
  return success();
}

/// beta * C in f32, its shape padded with leading 1s to `rank`: oneDNN's
/// binary post-op broadcasts along dims of 1 as NumPy does.
HostTensor scaledC(const HostTensor &c, double beta, size_t rank) {
  HostTensor out = c.convertTo(ElementType::F32);
  out.shape.insert(out.shape.begin(), rank - c.shape.size(), 1);
  for (int64_t i = 0; i < out.numElements(); ++i)
    out.setFromDouble(i, beta * out.getAsDouble(i));
  return out;
}

/// The product of MIOpenGemmProblem::getProduct as a oneDNN matmul: the
/// transposes are strides, alpha an output scale, and beta * C (broadcast
/// like addmm's self) a binary-add post-op.
LogicalResult runGemm(const MIOpenGemmProblem &p,
                      const std::vector<HostTensor> &inputs,
                      int64_t iterations, ElementType computeType,
                      harness::OneDNNRun &run) {
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  DataType type = toDnnl(computeType);
  ProblemSignature signature = getProblemSignature(p);
  MIOpenGemmProblem::Product product = p.getProduct();
  const HostTensor &lhs = inputs[signature.findArgument(product.lhs)];
  const HostTensor &rhs = inputs[signature.findArgument(product.rhs)];
  // A stored matrix read as its transpose when `transposed`.
  auto operand = [&](const HostTensor &t, bool transposed) {
    memory::dims dims(t.shape.begin(), t.shape.end());
    memory::dims strides = rowMajorStrides(t.shape);
    size_t r = dims.size();
    if (transposed) {
      std::swap(dims[r - 2], dims[r - 1]);
      std::swap(strides[r - 2], strides[r - 1]);
    }
    return memory::desc(dims, type, strides);
  };
  memory::desc lhsDesc = operand(lhs, product.transposeLhs);
  memory::desc rhsDesc = operand(rhs, product.transposeRhs);
  const std::vector<int64_t> &outShape = signature.results[0].shape;
  memory::desc dstDesc(outShape, type, rowMajorStrides(outShape));
  std::vector<Buffer> buffers;
  buffers.reserve(4);
  buffers.push_back(makeBuffer(lhs, computeType, lhsDesc, eng));
  buffers.push_back(makeBuffer(rhs, computeType, rhsDesc, eng));
  buffers.push_back(makeResult(outShape, computeType, dstDesc, eng));
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, buffers[0].user},
      {DNNL_ARG_WEIGHTS, buffers[1].user},
      {DNNL_ARG_DST, buffers[2].user}};
  primitive_attr attr;
  if (p.alpha != 1.0)
    attr.set_output_scales(0, {static_cast<float>(p.alpha)});
  if (p.hasInputC() && p.beta != 0.0) {
    HostTensor c = scaledC(inputs[signature.findArgument(p.getNameC())],
                           p.beta, outShape.size());
    memory::desc cDesc(c.shape, DataType::f32, rowMajorStrides(c.shape));
    buffers.push_back(makeBuffer(c, ElementType::F32, cDesc, eng));
    post_ops ops;
    ops.append_binary(algorithm::binary_add, cDesc);
    attr.set_post_ops(ops);
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] =
        buffers.back().user;
  }
  matmul::primitive_desc pd(matmul::desc(lhsDesc, rhsDesc, dstDesc), attr,
                            eng);
  std::vector<std::pair<primitive, std::unordered_map<int, memory>>> steps;
  steps.push_back({matmul(pd), args});
  run.milliseconds = timeCalls(strm, iterations, steps);
  const HostTensor &out = buffers[2].tensor;
  run.results.push_back(out.type == p.dataType ? out
                                               : out.convertTo(p.dataType));
  return success();
}

/// Runs oneDNN on `threads` threads (0: as it is) while alive.
class ScopedThreads {
public:
  explicit ScopedThreads(int64_t threads) {
#ifdef BOO_ONEDNN_THREADS_SETTABLE
    previous = omp_get_max_threads();
    if (threads > 0)
      omp_set_num_threads(static_cast<int>(threads));
#endif
  }
  ~ScopedThreads() {
#ifdef BOO_ONEDNN_THREADS_SETTABLE
    omp_set_num_threads(previous);
#endif
  }
  /// The threads oneDNN runs on now (0: unknown).
  static int64_t current() {
#ifdef BOO_ONEDNN_THREADS_SETTABLE
    return omp_get_max_threads();
#else
    return 0;
#endif
  }

private:
  int previous = 0;
};

} // namespace

LogicalResult harness::runOneDNN(const MIOpenProblem &problem,
                                 const std::vector<HostTensor> &inputs,
                                 int64_t iterations, int64_t threads,
                                 OneDNNRun &run, std::string &error) {
  run = OneDNNRun();
#ifndef BOO_ONEDNN_THREADS_SETTABLE
  if (threads > 0) {
    error = "oneDNN backend: this build cannot set oneDNN's thread count "
            "(it needs oneDNN's OpenMP runtime and libgomp)";
    return failure();
  }
#endif
  if (const auto *arg = std::get_if<MIOpenArgReduceProblem>(&problem)) {
    error = std::string("oneDNN backend: ") +
            (arg->isMax ? "argmax" : "argmin") +
            " has no oneDNN primitive (its reductions give values, not "
            "indices)";
    return failure();
  }
  ScopedThreads scoped(threads);
  if (inputs.size() != getProblemSignature(problem).arguments.size()) {
    error = "oneDNN backend: expected " +
            std::to_string(getProblemSignature(problem).arguments.size()) +
            " inputs";
    return failure();
  }
  ElementType native =
      std::visit([](const auto &p) { return p.dataType; }, problem);
  // The problem's type first; f32 where oneDNN has no implementation of it
  // (and for f64, which oneDNN's CPU engine does not have).
  SmallVector<ElementType, 2> computeTypes = {ElementType::F32};
  if (native != ElementType::F64 && native != ElementType::F32)
    computeTypes.insert(computeTypes.begin(), native);
  for (ElementType computeType : computeTypes) {
    try {
      run = OneDNNRun();
      LogicalResult result = success();
      if (const auto *conv = std::get_if<MIOpenConvProblem>(&problem)) {
        if (conv->bias && conv->direction == 2) {
          error = "oneDNN backend: a bias gradient without the weight "
                  "gradient (-F 2 -b 1) has no oneDNN primitive";
          return failure();
        }
        result = runConv(*conv, inputs, iterations, computeType, run);
      } else if (const auto *gemm = std::get_if<MIOpenGemmProblem>(&problem)) {
        if (!gemm->stridesA.empty() || !gemm->stridesB.empty()) {
          error = "oneDNN backend: an aten operand read through strides "
                  "from its storage is not compared";
          return failure();
        }
        result = runGemm(*gemm, inputs, iterations, computeType, run);
      } else if (const auto *bnorm =
                     std::get_if<MIOpenBatchNormProblem>(&problem)) {
        if (failed(runBatchNorm(*bnorm, inputs, iterations, computeType, run,
                                error)))
          return failure();
      } else {
        result = runLayerNorm(std::get<MIOpenLayerNormProblem>(problem), inputs,
                              iterations, computeType, run, error);
        if (failed(result))
          return failure();
      }
      if (failed(result)) {
        error = "oneDNN backend: unsupported problem";
        return failure();
      }
      if (computeType != native)
        run.note = std::string("f32 compute: oneDNN has no ") +
                   getElementTypeName(native) + " implementation here" +
                   (run.note.empty() ? "" : "; " + run.note);
      run.threads = ScopedThreads::current();
      return success();
    } catch (const dnnl::error &e) {
      error = std::string("oneDNN: ") + e.what() + " (status " +
              std::to_string(static_cast<int>(e.status)) + ")";
      // Only a missing implementation of the type falls back to f32.
      if (computeType == ElementType::F32 || e.status != dnnl_unimplemented)
        return failure();
    } catch (const std::exception &e) {
      error = std::string("oneDNN backend: ") + e.what();
      return failure();
    }
  }
  return failure();
}

#endif // BOO_HAVE_ONEDNN
