//===- boo-opt.cpp - Boo optimizer driver ---------------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::boo::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::boo::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Boo optimizer driver\n", registry));
}
