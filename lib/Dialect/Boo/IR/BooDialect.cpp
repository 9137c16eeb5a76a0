//===- BooDialect.cpp - Boo dialect ---------------------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/BooDialect.h"
#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Dialect/Boo/IR/BooOps.h"

using namespace mlir;
using namespace mlir::boo;

#include "Boo/Dialect/Boo/IR/BooOpsDialect.cpp.inc"

void BooDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Boo/Dialect/Boo/IR/BooOps.cpp.inc"
      >();
  registerAttributes(); // BooAttrs.cpp
}
