//===- InitAll.h - Register Boo and the dialects it uses --------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_INITALL_H
#define BOO_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::boo {

/// Registers the Boo dialect and every dialect its pipelines produce, with
/// the external models (bufferization, tiling) they need.
void registerAllDialects(DialectRegistry &registry);

/// Registers Boo's passes and pipelines, and the upstream passes the
/// pipelines are made of (so each stage can be replayed with boo-opt).
void registerAllPasses();

} // namespace mlir::boo

#endif // BOO_INITALL_H
