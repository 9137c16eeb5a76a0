//===- ProblemNames.h - IREE BOO's names of Boo problems --------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The one spelling of a problem's name, following IREE BOO's kernel names:
// the MIOpen importer names its functions with it (Boo/Import/
// ProblemSignature.h) and tuning specs match kernels by it
// (Boo/Dialect/Boo/TransformOps/TuningSpec.h). docs/Tuning.md lists the
// grammar.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_IR_PROBLEMNAMES_H
#define BOO_DIALECT_BOO_IR_PROBLEMNAMES_H

#include "Boo/Dialect/Boo/IR/ConvGeometry.h"
#include "Boo/ElementType.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::boo {

/// A layout as IREE BOO's kernel names spell it: lower case; a filter's
/// output-channel letter (K, F or N) is `f` and its spatial letters are d, h,
/// w; an output's channel letter is `f`.
std::string getLayoutSignatureName(StringRef layout, LayoutKind kind,
                                   bool isOutput);

/// "2x3x4": a shape as kernel names spell it.
std::string joinShape(ArrayRef<int64_t> values);

/// conv_<r>d_<dtype>_<mode>[_b]_<input shape>_<input layout>_<filter shape>_
/// <filter layout>_<output layout>_<strides>s_<padding>p[_<high padding>ph]_
/// <dilations>d_<groups>g. The layouts are as the op or command spells them
/// (defaults filled in); `ph` appears only when the padding is asymmetric.
/// `dtype` is torch's spelling ("bfloat16").
std::string getConvProblemName(ElementType type, const ConvGeometry &g,
                               StringRef inputLayout, StringRef filterLayout,
                               StringRef outputLayout, StringRef mode,
                               bool bias);

/// conv_<r>d_<dtype>_bias_backward_<grad output shape>_<output layout>.
std::string getConvBiasBackwardName(ElementType type,
                                    ArrayRef<int64_t> gradOutputShape,
                                    StringRef outputLayout);

/// layer_norm_<normalized rank>d_<dtype>_<mode>_<x shape>[_w][_b].
std::string getLayerNormProblemName(ElementType type, ArrayRef<int64_t> shape,
                                    int64_t normalizedRank, StringRef mode,
                                    bool weight, bool bias);

/// IREE BOO's name of a matrix product, e.g.
/// "gemm_float16_forward_64x32x128_transA": type, mode ("forward",
/// "a_backward", "b_backward"), [batch x] M x K x N, then "transA" and
/// "transB" when set, "alpha" when alpha is not 1 and "beta" when there is
/// a C term (a bias) (Boo's additions, as are the batch and
/// "a_backward"/"b_backward"). Tuning specs match boo.matmul kernels by it.
std::string getGemmProblemName(ElementType type, StringRef mode, int64_t batch,
                               int64_t m, int64_t k, int64_t n, bool transA,
                               bool transB, bool alpha, bool beta);

/// batch_norm_<dtype>_<mode>_<x shape>_<layout>_<spatial|activation>
/// [_<parameter dtype>_<statistics dtype>][_save][_run][_eps<e>]
/// [_momentum<m>], e.g.
/// "batch_norm_bfloat16_training_8x56x56x64_nhwc_spatial_float_float_save_
/// run" (without the line break): mode "training", "inference" or
/// "backward", the layout lower case; the parameter and statistics types
/// appear when either differs from x's; epsilon and momentum when they are
/// not PyTorch's defaults (1e-5, 0.1), as C's "%g" prints them with '.'
/// spelled 'p' and '-' 'm' ("eps0p001", "momentum1em05").
std::string getBatchNormProblemName(ElementType type, ElementType paramType,
                                    ElementType statType, StringRef mode,
                                    ArrayRef<int64_t> shape, StringRef layout,
                                    bool spatial, bool save, bool run,
                                    float epsilon, float momentum);

/// aten_<argmax|argmin>_<dtype>_<shape>_<dim<d>|all>[_keepdim], e.g.
/// "aten_argmax_float32_4x8x16_dim1".
std::string getArgReduceProblemName(ElementType type, bool isMax,
                                    ArrayRef<int64_t> shape,
                                    std::optional<int64_t> dim, bool keepdim);

} // namespace mlir::boo

#endif // BOO_DIALECT_BOO_IR_PROBLEMNAMES_H
